// A tiny ISO-BMFF reader for the encoder tests (not a test file itself).

export interface Box {
  type: string;
  start: number;
  size: number;
}

/** The top-level boxes of an MP4 (ftyp, moov, moof, mdat...). */
export function topLevelBoxes(bytes: Uint8Array): Box[] {
  return children(bytes, 0, bytes.length);
}

function children(bytes: Uint8Array, from: number, to: number): Box[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Box[] = [];
  let at = from;
  while (at + 8 <= to) {
    let size = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (size === 1) size = Number(view.getBigUint64(at + 8));
    if (size < 8) break;
    out.push({ type, start: at, size });
    at += size;
  }
  return out;
}

/** Per track kind, the sample count and sample durations of all fragments' trun boxes (video = track 1). */
export function trackRunDurations(bytes: Uint8Array): { video: { samples: number; durations: number[] }; audio: { samples: number } } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const video = { samples: 0, durations: [] as number[] };
  const audio = { samples: 0 };
  for (const moof of topLevelBoxes(bytes).filter((b) => b.type === 'moof')) {
    for (const traf of children(bytes, moof.start + 8, moof.start + moof.size).filter((b) => b.type === 'traf')) {
      const inner = children(bytes, traf.start + 8, traf.start + traf.size);
      const tfhd = inner.find((b) => b.type === 'tfhd')!;
      const trackId = view.getUint32(tfhd.start + 12);
      const tfhdFlags = view.getUint32(tfhd.start + 8) & 0xffffff;
      let p = tfhd.start + 16;
      if (tfhdFlags & 0x1) p += 8;
      if (tfhdFlags & 0x2) p += 4;
      const defaultDuration = tfhdFlags & 0x8 ? view.getUint32(p) : 0;
      for (const trun of inner.filter((b) => b.type === 'trun')) {
        const flags = view.getUint32(trun.start + 8) & 0xffffff;
        const count = view.getUint32(trun.start + 12);
        let q = trun.start + 16;
        if (flags & 0x1) q += 4;
        if (flags & 0x4) q += 4;
        const per = (flags & 0x100 ? 4 : 0) + (flags & 0x200 ? 4 : 0) + (flags & 0x400 ? 4 : 0) + (flags & 0x800 ? 4 : 0);
        for (let i = 0; i < count; i++) {
          const duration = flags & 0x100 ? view.getUint32(q + i * per) : defaultDuration;
          if (trackId === 1) video.durations.push(duration);
        }
        if (trackId === 1) video.samples += count;
        else audio.samples += count;
      }
    }
  }
  return { video, audio };
}
