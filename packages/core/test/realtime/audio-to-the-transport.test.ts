import { expect } from 'chai';
import { serverEventJson } from '../../src/realtime/index.js';
import { bytesToPcm, pcmBytesView, pcmToBytes } from '../../src/shared/audio.js';
import { encodeBase64 } from '../../src/shared/base64.js';

describe('reply audio stays binary until the transport writes the event', () => {
  const samples = new Int16Array([0, 1, -1, 32767, -32768, 258]);

  it("pcmBytesView is the samples' little-endian bytes, sharing their memory (no copy)", () => {
    const view = pcmBytesView(samples);
    expect([...view]).to.deep.equal([...pcmToBytes(samples)]);
    expect(view.buffer).to.equal(samples.buffer);
    // A slice of the samples (as replies are cut into 40 ms deltas) is viewed at its own offset.
    const slice = samples.subarray(2, 4);
    expect([...bytesToPcm(pcmBytesView(slice))]).to.deep.equal([-1, 32767]);
  });

  it("serverEventJson base64-encodes a delta given as bytes with the transport's encoder, once", () => {
    const calls: number[] = [];
    const nodeBase64 = (bytes: Uint8Array) => {
      calls.push(bytes.length);
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
    };
    const event = {
      type: 'response.output_audio.delta',
      event_id: 'event_1',
      response_id: 'resp_1',
      delta: pcmBytesView(samples.subarray(1, 3)),
    };
    const wire = JSON.parse(serverEventJson(event, nodeBase64));
    expect(calls).to.deep.equal([4]);
    expect(Object.keys(wire)).to.deep.equal(['type', 'event_id', 'response_id', 'delta']);
    expect([...bytesToPcm(Buffer.from(wire.delta, 'base64'))]).to.deep.equal([1, -1]);
    // Without a transport's encoder, the core's own gives the same text.
    expect(JSON.parse(serverEventJson(event)).delta).to.equal(wire.delta);
    expect(wire.delta).to.equal(encodeBase64(pcmToBytes(new Int16Array([1, -1]))));
  });

  it('leaves every other event, and text deltas, as they are', () => {
    const text = { type: 'response.output_audio_transcript.delta', event_id: 'event_2', delta: 'Hello' };
    expect(serverEventJson(text, () => 'never')).to.equal(JSON.stringify(text));
  });
});
