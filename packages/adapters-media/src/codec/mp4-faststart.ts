/**
 * Moves an MP4/M4A `moov` box in front of `mdat` ("faststart"), patching the chunk offsets
 * (`stco`/`co64`) it contains. ffmpeg reading from a pipe cannot seek back to `mdat` after
 * finding `moov` at the end (what most recorders write), and decode never uses temporary files,
 * so the bytes are reordered in memory instead. Returns the input unchanged when it is already
 * streamable, fragmented, or not understood.
 * Hand-written because no npm package does this: there is no qt-faststart port on the registry;
 * mp4box (GPAC's MP4Box.js) and mp4-stream parse and write boxes but do not relocate `moov` with its
 * chunk offsets; mux.js transmuxes to fragmented MP4; ffmpeg's own `-movflags faststart` needs a
 * seekable output file.
 */
export function mp4Faststart(bytes: Uint8Array): Uint8Array {
  const boxes = topLevelBoxes(bytes);
  if (!boxes) return bytes;
  const moovIndex = boxes.findIndex((b) => b.type === 'moov');
  const mdatIndex = boxes.findIndex((b) => b.type === 'mdat');
  if (moovIndex < 0 || mdatIndex < 0 || moovIndex < mdatIndex) return bytes;

  const moovBox = boxes[moovIndex]!;
  // A copy (Buffer#slice would be a view): the caller's bytes are never modified.
  const moov = Uint8Array.from(bytes.subarray(moovBox.start, moovBox.end));
  const shift = moov.length;
  if (!patchChunkOffsets(moov, 8, moov.length, shift)) return bytes;

  const out = new Uint8Array(bytes.length);
  let offset = 0;
  for (let i = 0; i < boxes.length; i++) {
    if (i === moovIndex) continue;
    if (i === mdatIndex) {
      out.set(moov, offset);
      offset += moov.length;
    }
    const b = boxes[i]!;
    out.set(bytes.subarray(b.start, b.end), offset);
    offset += b.end - b.start;
  }
  return out;
}

interface Box {
  type: string;
  start: number;
  end: number;
  headerSize: number;
}

function readBox(bytes: Uint8Array, view: DataView, offset: number, limit: number): Box | null {
  if (offset + 8 > limit) return null;
  let size = view.getUint32(offset);
  const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
  let headerSize = 8;
  if (size === 1) {
    if (offset + 16 > limit) return null;
    size = Number(view.getBigUint64(offset + 8));
    headerSize = 16;
  } else if (size === 0) {
    size = limit - offset;
  }
  if (size < headerSize || offset + size > limit) return null;
  return { type, start: offset, end: offset + size, headerSize };
}

function topLevelBoxes(bytes: Uint8Array): Box[] | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const boxes: Box[] = [];
  for (let offset = 0; offset < bytes.length;) {
    const box = readBox(bytes, view, offset, bytes.length);
    if (!box) return null;
    boxes.push(box);
    offset = box.end;
  }
  return boxes;
}

/** Boxes whose children lead to the sample tables. */
const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts', 'dinf']);

/** Adds `shift` to every chunk offset inside [from, to) of a moov box copy. False on malformed data. */
function patchChunkOffsets(moov: Uint8Array, from: number, to: number, shift: number): boolean {
  const view = new DataView(moov.buffer, moov.byteOffset, moov.byteLength);
  for (let offset = from; offset < to;) {
    const box = readBox(moov, view, offset, to);
    if (!box) return false;
    const body = box.start + box.headerSize;
    if (CONTAINERS.has(box.type)) {
      if (!patchChunkOffsets(moov, body, box.end, shift)) return false;
    } else if (box.type === 'stco' || box.type === 'co64') {
      const wide = box.type === 'co64';
      const count = view.getUint32(body + 4);
      for (let i = 0; i < count; i++) {
        const at = body + 8 + i * (wide ? 8 : 4);
        if (at + (wide ? 8 : 4) > box.end) return false;
        if (wide) view.setBigUint64(at, view.getBigUint64(at) + BigInt(shift));
        else {
          const value = view.getUint32(at) + shift;
          if (value > 0xffffffff) return false;
          view.setUint32(at, value);
        }
      }
    }
    offset = box.end;
  }
  return true;
}
