import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import { InvalidRequestError } from '@svc/core';
import { liveOpusStates, OPUS_FRAME_SIZES_MS, OpusscriptOpusCodec } from '../../src/index.js';
import { librivoxClip } from '@svc/adapters-testing';
import { dominantHz, goertzel, RATE, rms, sine, upsample3, zeroCrossingHz } from './opus-signals.js';

const codec = new OpusscriptOpusCodec();

function encodeAll(pcm: Int16Array, frameSizeMs: number, chunk = pcm.length): { packets: Uint8Array[]; flushed: Uint8Array[] } {
  const encoder = codec.createEncoder(frameSizeMs);
  const packets: Uint8Array[] = [];
  for (let offset = 0; offset < pcm.length; offset += chunk) packets.push(...encoder.encode(pcm.subarray(offset, offset + chunk)));
  return { packets, flushed: encoder.flush() };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('OpusscriptOpusCodec', () => {
  const tone = sine(440, 1000);

  it('encodes 1 s of a 440 Hz sine into 50 packets of 20 ms and decodes it back to ~1 s of 440 Hz at the same energy', async () => {
    const { packets, flushed } = encodeAll(tone, 20);
    expect(packets).to.have.length(50);
    expect(flushed).to.have.length(0);
    for (const packet of packets) expect(packet.length).to.be.within(1, 1275);

    const decoded = await codec.decode(packets, 20);
    expect(decoded.sampleRate).to.equal(48000);
    expect(decoded.samples.length).to.equal(48000);
    // Skip the encoder's start-up (its 6.5 ms look-ahead and first frames) for the measurements.
    const body = decoded.samples.subarray(4800);
    expect(dominantHz(body)).to.be.closeTo(440, 10);
    expect(zeroCrossingHz(body)).to.be.closeTo(440, 440 * 0.02);
    expect(goertzel(body, 440)).to.be.greaterThan(100 * goertzel(body, 880));
    expect(rms(body) / rms(tone)).to.be.within(0.9, 1.1);
  });

  it('emits the last partial frame, padded with silence, on flush', async () => {
    const { packets, flushed } = encodeAll(sine(440, 1005), 20);
    expect(packets).to.have.length(50);
    expect(flushed).to.have.length(1);
    const decoded = await codec.decode([...packets, ...flushed], 20);
    expect(decoded.samples.length).to.equal(51 * 960);
    // The last frame holds 5 ms (240 samples) of tone, then silence; the codec delays by 312 samples.
    const last = decoded.samples.subarray(50 * 960);
    expect(rms(last.subarray(312, 552))).to.be.greaterThan(rms(tone) / 2);
    expect(rms(last.subarray(800))).to.be.lessThan(rms(tone) / 10);
  });

  for (const ms of OPUS_FRAME_SIZES_MS) {
    it(`works with ${ms} ms frames (${48 * ms} samples per packet)`, async () => {
      const { packets, flushed } = encodeAll(tone, ms);
      // 1 s is a whole number of frames except for 60 ms (16 frames + 40 ms, padded on flush).
      expect(packets).to.have.length(Math.floor(1000 / ms));
      expect(flushed).to.have.length(1000 % ms === 0 ? 0 : 1);
      const decoded = await codec.decode([...packets, ...flushed], ms);
      expect(decoded.samples.length).to.equal((packets.length + flushed.length) * 48 * ms);
      const body = decoded.samples.subarray(4800);
      expect(dominantHz(body)).to.be.closeTo(440, 10);
      expect(rms(body) / rms(tone)).to.be.within(0.85, 1.15);
    });
  }

  it('gives the same packets whatever the chunk sizes given to encode()', () => {
    const reference = encodeAll(tone, 20);
    for (const chunk of [1, 7, 331, 959, 961, 4801]) {
      const { packets, flushed } = encodeAll(tone, 20, chunk);
      expect(packets, `chunks of ${chunk}`).to.have.length(50);
      expect(flushed).to.have.length(0);
      expect(packets.map((p) => Buffer.from(p).toString('hex'))).to.deep.equal(
        reference.packets.map((p) => Buffer.from(p).toString('hex')),
      );
    }
    // Mixed chunk sizes with a partial tail: 50 packets + 1 on flush.
    const encoder = codec.createEncoder(20);
    const odd = sine(440, 1005);
    const packets: Uint8Array[] = [];
    let offset = 0;
    for (const size of [1, 2, 3, 997, 4000, 13]) {
      packets.push(...encoder.encode(odd.subarray(offset, offset + size)));
      offset += size;
    }
    packets.push(...encoder.encode(odd.subarray(offset)));
    expect(packets).to.have.length(50);
    expect(encoder.flush()).to.have.length(1);
  });

  it('rejects garbage packets with an invalid_request_error naming the packet', async () => {
    const before = liveOpusStates();
    const good = encodeAll(tone, 20).packets.slice(0, 3);
    const garbage = [
      Uint8Array.of(0x03), // code 3 without its frame count
      Uint8Array.of(0x03, 0x00), // code 3 with zero frames
      Uint8Array.of(0x02, 0xff), // code 2 whose first frame length is cut off
      Uint8Array.of(0x03, 0x3f), // 63 frames of 2.5 ms+: more than 120 ms
      new Uint8Array(0), // empty
      new Uint8Array(70000), // longer than any opus packet
    ];
    for (const bad of garbage) {
      const err = await rejection(codec.decode([good[0]!, bad, good[1]!], 20));
      expect(err, Buffer.from(bad.subarray(0, 4)).toString('hex')).to.be.instanceOf(InvalidRequestError);
      expect(err.message).to.match(/^Opus packet 2 of 3 \(\d+ bytes\) could not be decoded/);
    }
    const err = await rejection(codec.decode([Uint8Array.of(0x03)], 20));
    expect(err.message).to.contain('invalid packet');
    expect(liveOpusStates()).to.equal(before);
  });

  it('refuses frame sizes outside the spec', async () => {
    expect(() => codec.createEncoder(30)).to.throw(RangeError, /2\.5, 5, 10, 20, 40, 60/);
    expect((await rejection(codec.decode([], 7))).name).to.equal('RangeError');
  });

  it('round-trips 3 s of real speech (LibriVox, 16 kHz upsampled x3) with the rms within 30 %', async () => {
    const clip = librivoxClip('0870');
    const speech = upsample3(clip.samples.subarray(0, 3 * 16000));
    expect(speech.length).to.equal(3 * RATE);
    const { packets, flushed } = encodeAll(speech, 20, 480);
    expect(packets.length + flushed.length).to.equal(150);
    const decoded = await codec.decode([...packets, ...flushed], 20);
    expect(decoded.samples.length).to.equal(speech.length);
    const ratio = rms(decoded.samples) / rms(speech);
    expect(ratio).to.be.within(0.7, 1.3);
    // The waveform itself survives (aligned by the codec's 312-sample look-ahead).
    const delay = 312;
    let dot = 0;
    let a2 = 0;
    let b2 = 0;
    for (let i = 0; i + delay < speech.length; i++) {
      const a = speech[i]!;
      const b = decoded.samples[i + delay]!;
      dot += a * b;
      a2 += a * a;
      b2 += b * b;
    }
    expect(dot / Math.sqrt(a2 * b2)).to.be.greaterThan(0.6); // ~0.82 measured: opus is perceptual, not waveform-exact
  });

  it('keeps many encoders alive at once (the WASM heap grows) without corrupting any of them', () => {
    const reference = encodeAll(tone, 20).packets.map((p) => Buffer.from(p).toString('hex'));
    const before = liveOpusStates();
    const first = codec.createEncoder(20);
    const firstPackets = first.encode(tone.subarray(0, 24000));
    const others = Array.from({ length: 400 }, () => codec.createEncoder(20));
    // Each allocates its native state on its first frame: 400 x ~17 KB grows the 16 MB heap.
    for (const other of others) other.encode(tone.subarray(0, 960));
    expect(liveOpusStates()).to.equal(before + 401);
    firstPackets.push(...first.encode(tone.subarray(24000)));
    expect(firstPackets.map((p) => Buffer.from(p).toString('hex'))).to.deep.equal(reference);
    for (const other of others) expect(other.flush()).to.have.length(0);
    expect(first.flush()).to.have.length(0);
    expect(liveOpusStates()).to.equal(before);
  });

  it('frees the native state on flush, and lazily: an encoder that never encodes allocates nothing', () => {
    const before = liveOpusStates();
    const idle = codec.createEncoder(20);
    expect(liveOpusStates()).to.equal(before);
    expect(idle.flush()).to.deep.equal([]);
    const encoder = codec.createEncoder(20);
    encoder.encode(tone.subarray(0, 1000));
    expect(liveOpusStates()).to.equal(before + 1);
    expect(encoder.flush()).to.have.length(1);
    expect(liveOpusStates()).to.equal(before);
    // A new stream after flush gets a fresh state.
    expect(encoder.encode(tone.subarray(0, 960))).to.have.length(1);
    expect(encoder.flush()).to.have.length(0);
    expect(liveOpusStates()).to.equal(before);
  });

  it('frees the native state of an encoder dropped without flush once it is garbage-collected', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const before = liveOpusStates();
    (() => {
      const dropped = codec.createEncoder(20);
      dropped.encode(tone.subarray(0, 2000));
    })();
    expect(liveOpusStates()).to.equal(before + 1);
    for (let i = 0; i < 50 && liveOpusStates() > before; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(liveOpusStates()).to.equal(before);
  });
});
