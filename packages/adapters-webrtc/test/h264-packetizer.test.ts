import { expect } from 'chai';
import { packetizeH264 } from '../src/h264-packetizer.js';

/** Reassembles NAL units from RFC 6184 payloads (single NAL, STAP-A, FU-A): an independent reader. */
function depacketize(payloads: Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let fragment: number[] | null = null;
  for (const p of payloads) {
    const type = p[0]! & 0x1f;
    if (type === 24) {
      for (let at = 1; at < p.length;) {
        const size = (p[at]! << 8) | p[at + 1]!;
        out.push(p.subarray(at + 2, at + 2 + size));
        at += 2 + size;
      }
    } else if (type === 28) {
      const start = (p[1]! & 0x80) !== 0;
      const end = (p[1]! & 0x40) !== 0;
      if (start) fragment = [(p[0]! & 0xe0) | (p[1]! & 0x1f)];
      fragment!.push(...p.subarray(2));
      if (end) {
        out.push(Uint8Array.from(fragment!));
        fragment = null;
      }
    } else {
      out.push(p);
    }
  }
  return out;
}

const nal = (type: number, size: number, nri = 3) => {
  const u = new Uint8Array(size);
  u[0] = (nri << 5) | type;
  for (let i = 1; i < size; i++) u[i] = (i * 31 + type) & 0xff;
  return u;
};

describe('packetizeH264: RFC 6184 packetization mode 1', () => {
  it('puts SPS, PPS and a small slice in one STAP-A, and a lone small unit as it is', () => {
    const units = [nal(7, 20), nal(8, 6), nal(5, 300)];
    const payloads = packetizeH264(units);
    expect(payloads).to.have.length(1);
    expect(payloads[0]![0]! & 0x1f).to.equal(24);
    expect((payloads[0]![0]! >> 5) & 3, 'NRI: the highest of the units').to.equal(3);
    expect(depacketize(payloads)).to.deep.equal(units);
    const lone = packetizeH264([nal(1, 500, 2)]);
    expect(lone).to.deep.equal([nal(1, 500, 2)]);
  });

  it('fragments a big unit into FU-A payloads within the size limit, start and end bits set, and reassembles exactly', () => {
    const units = [nal(7, 20), nal(8, 6), nal(5, 5000), nal(1, 40)];
    const payloads = packetizeH264(units, 1200);
    for (const p of payloads) expect(p.length).to.be.at.most(1200);
    const fus = payloads.filter((p) => (p[0]! & 0x1f) === 28);
    expect(fus.length).to.equal(Math.ceil(4999 / 1198));
    expect(fus[0]![1]! & 0xc0, 'start bit on the first').to.equal(0x80);
    expect(fus.at(-1)![1]! & 0xc0, 'end bit on the last').to.equal(0x40);
    expect(fus.every((p) => (p[1]! & 0x1f) === 5)).to.equal(true);
    expect(depacketize(payloads)).to.deep.equal(units);
  });
});
