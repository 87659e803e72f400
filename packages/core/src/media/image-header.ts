/**
 * What an image is and how large it would be once decoded, read from the first bytes of the file
 * alone (PNG IHDR, JPEG SOF, WEBP VP8/VP8L/VP8X headers). Nothing is decoded: this is how a
 * decompression bomb (a few KB that decode to gigabytes) is refused before any decoder runs, and how
 * the format is known from the content rather than from a file name or a claimed type.
 */
export type ImageFormat = 'png' | 'jpeg' | 'webp';

export interface ImageHeader {
  format: ImageFormat;
  width: number;
  height: number;
}

/**
 * Resolves to the format and pixel dimensions, or null when the bytes are not a PNG, JPEG or WEBP
 * whose header can be read.
 */
export function readImageHeader(bytes: Uint8Array): ImageHeader | null {
  if (isPng(bytes)) return pngHeader(bytes);
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return jpegHeader(bytes);
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return webpHeader(bytes);
  return null;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function isPng(b: Uint8Array): boolean {
  return b.length >= 8 && PNG_SIGNATURE.every((v, i) => b[i] === v);
}

function pngHeader(b: Uint8Array): ImageHeader | null {
  // The first chunk must be IHDR: length (4) 'IHDR' width (4, big-endian) height (4).
  if (b.length < 24 || ascii(b, 12, 4) !== 'IHDR') return null;
  return sized('png', u32be(b, 16), u32be(b, 20));
}

/** SOFn markers carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpegHeader(b: Uint8Array): ImageHeader | null {
  let i = 2;
  while (i + 3 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    // Markers without a length field.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image / start of scan before any frame header
    const length = u16be(b, i + 2);
    if (length < 2) return null;
    if (isStartOfFrame(marker)) {
      if (i + 9 > b.length) return null;
      return sized('jpeg', u16be(b, i + 7), u16be(b, i + 5));
    }
    i += 2 + length;
  }
  return null;
}

function webpHeader(b: Uint8Array): ImageHeader | null {
  const chunk = ascii(b, 12, 4);
  if (chunk === 'VP8 ') {
    // Lossy: a 3-byte frame tag, the start code 9d 01 2a, then 14-bit width and height.
    if (b.length < 30 || b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null;
    return sized('webp', u16le(b, 26) & 0x3fff, u16le(b, 28) & 0x3fff);
  }
  if (chunk === 'VP8L') {
    // Lossless: signature 0x2f, then width-1 and height-1 as two 14-bit fields.
    if (b.length < 25 || b[20] !== 0x2f) return null;
    const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
    return sized('webp', (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') {
    // Extended: canvas width-1 and height-1 as 24-bit little-endian fields.
    if (b.length < 30) return null;
    return sized('webp', u24le(b, 24) + 1, u24le(b, 27) + 1);
  }
  return null;
}

function sized(format: ImageFormat, width: number, height: number): ImageHeader | null {
  return width > 0 && height > 0 ? { format, width, height } : null;
}

const u16be = (b: Uint8Array, i: number): number => (b[i]! << 8) | b[i + 1]!;
const u16le = (b: Uint8Array, i: number): number => b[i]! | (b[i + 1]! << 8);
const u24le = (b: Uint8Array, i: number): number => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
const u32be = (b: Uint8Array, i: number): number => ((b[i]! << 24) >>> 0) + ((b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!);

function ascii(b: Uint8Array, start: number, length: number): string {
  if (start + length > b.length) return '';
  let s = '';
  for (let i = start; i < start + length; i++) s += String.fromCharCode(b[i]!);
  return s;
}
