import type { EncodedVideoFrame } from '@svc/core';

/** NAL unit types that matter here (H.264 table 7-1). */
export const NAL_IDR = 5;
export const NAL_SPS = 7;
export const NAL_PPS = 8;

/**
 * Reads H.264 access units out of an FLV byte stream as it arrives, in any chunking: each video tag
 * is one access unit whose length is known from its header, so a frame is complete the moment its
 * last byte is read (a raw Annex B stream only shows a frame's end when the next one starts, a
 * whole frame later). The AVC sequence header's SPS and PPS are put in front of every keyframe,
 * so each keyframe can be decoded on its own (a receiver that joined late or lost packets).
 */
export class FlvH264Reader {
  private buffer = new Uint8Array(0);
  private headerRead = false;
  private sps: Uint8Array[] = [];
  private pps: Uint8Array[] = [];

  /** Feeds bytes; returns the access units they completed, in order. */
  push(chunk: Uint8Array): EncodedVideoFrame[] {
    const joined = new Uint8Array(this.buffer.length + chunk.length);
    joined.set(this.buffer);
    joined.set(chunk, this.buffer.length);
    let at = 0;
    const out: EncodedVideoFrame[] = [];
    if (!this.headerRead) {
      if (joined.length < 13) {
        this.buffer = joined;
        return out;
      }
      if (joined[0] !== 0x46 || joined[1] !== 0x4c || joined[2] !== 0x56) throw new Error('not an FLV stream');
      at = readUint32(joined, 5) + 4; // header, then PreviousTagSize0
      this.headerRead = true;
    }
    while (joined.length - at >= 11) {
      const type = joined[at]!;
      const size = (joined[at + 1]! << 16) | (joined[at + 2]! << 8) | joined[at + 3]!;
      const end = at + 11 + size + 4;
      if (joined.length < end) break;
      if (type === 9) {
        const frame = this.videoTag(joined.subarray(at + 11, at + 11 + size));
        if (frame) out.push(frame);
      }
      at = end;
    }
    this.buffer = joined.slice(at);
    return out;
  }

  private videoTag(data: Uint8Array): EncodedVideoFrame | null {
    if (data.length < 5 || (data[0]! & 0x0f) !== 7) return null; // not AVC
    const packetType = data[1]!;
    const body = data.subarray(5);
    if (packetType === 0) {
      this.readDecoderConfiguration(body);
      return null;
    }
    if (packetType !== 1) return null;
    const nalUnits: Uint8Array[] = [];
    for (let i = 0; i + 4 <= body.length;) {
      const length = readUint32(body, i);
      nalUnits.push(body.slice(i + 4, i + 4 + length));
      i += 4 + length;
    }
    const keyframe = nalUnits.some((n) => (n[0]! & 0x1f) === NAL_IDR);
    if (keyframe && !nalUnits.some((n) => (n[0]! & 0x1f) === NAL_SPS)) nalUnits.unshift(...this.sps, ...this.pps);
    return { nalUnits, keyframe };
  }

  /** AVCDecoderConfigurationRecord (ISO 14496-15 5.2.4.1): the SPS and PPS. */
  private readDecoderConfiguration(record: Uint8Array): void {
    let i = 5;
    const spsCount = record[i++]! & 0x1f;
    this.sps = [];
    for (let k = 0; k < spsCount; k++) {
      const length = (record[i]! << 8) | record[i + 1]!;
      this.sps.push(record.slice(i + 2, i + 2 + length));
      i += 2 + length;
    }
    const ppsCount = record[i++]!;
    this.pps = [];
    for (let k = 0; k < ppsCount; k++) {
      const length = (record[i]! << 8) | record[i + 1]!;
      this.pps.push(record.slice(i + 2, i + 2 + length));
      i += 2 + length;
    }
  }
}

function readUint32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}
