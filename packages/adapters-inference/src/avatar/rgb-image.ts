/** A decoded picture: RGB24, row-major, width*height*3 bytes. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A point in pixels. */
export interface Point {
  x: number;
  y: number;
}
