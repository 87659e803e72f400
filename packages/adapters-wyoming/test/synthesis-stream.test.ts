import { expect } from 'chai';
import { SynthesisStream, type PiecePlace } from '../src/session/synthesis.js';

describe('SynthesisStream (synthesize-start ... synthesize-stop)', () => {
  it("tells each piece its place: only the stream's first piece opens the audio and only the piece spoken after the stop closes it", async () => {
    const spoken: Array<[string, PiecePlace]> = [];
    let release: () => void = () => undefined;
    const stream = new SynthesisStream(async (text, place) => {
      spoken.push([text, place]);
      // The first piece takes a while, as synthesis does: the next ones wait meanwhile.
      if (spoken.length === 1) await new Promise<void>((r) => (release = r));
    });
    stream.push('Hello there. How ');
    await new Promise((r) => setImmediate(r));
    stream.push('are you? Fine ');
    stream.push('thanks. Bye');
    stream.stop();
    release();
    await stream.done;
    expect(spoken).to.deep.equal([
      ['Hello there.', { first: true, last: false }],
      ['How are you? Fine thanks. Bye', { first: false, last: true }],
    ]);
  });

  it('a piece spoken before the stop is not the last, even when nothing follows it', async () => {
    const spoken: PiecePlace[] = [];
    const stream = new SynthesisStream(async (_text, place) => void spoken.push(place));
    stream.push('One sentence. ');
    stream.push('Another');
    await new Promise((r) => setImmediate(r));
    stream.stop();
    await stream.done;
    expect(spoken).to.deep.equal([
      { first: true, last: false },
      { first: false, last: true },
    ]);
  });
});
