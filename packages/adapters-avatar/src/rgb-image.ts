/** A decoded picture: RGB24, row-major, width*height*3 bytes. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A box in frame pixels (x1, y1 exclusive). */
export interface PixelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A point in pixels. */
export interface Point {
  x: number;
  y: number;
}
