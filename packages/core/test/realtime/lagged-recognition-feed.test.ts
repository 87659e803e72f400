import { expect } from 'chai';
import { LaggedRecognitionFeed, RECOGNITION_TAIL_MS } from '../../src/realtime/audio/lagged-recognition-feed.js';
import type { RecognitionStream } from '../../src/realtime/ports/audio-pipeline.js';

/** A recognizer stream that records every sample it is given (values are their analysis-time positions). */
function recordingStream(): RecognitionStream & { heard: number[]; finished: boolean; cancelled: boolean } {
  const stream = {
    heard: [] as number[],
    finished: false,
    cancelled: false,
    partial: 'so far',
    write(samples: Int16Array) {
      stream.heard.push(...samples);
    },
    async finish() {
      stream.finished = true;
      return { text: 'done' };
    },
    cancel() {
      stream.cancelled = true;
    },
  };
  return stream;
}

/** 1 kHz "audio" whose sample values are their own positions (1 sample per ms). */
const ms = (from: number, to: number) => Int16Array.from({ length: to - from }, (_, i) => from + i);

describe('LaggedRecognitionFeed: the recognizer never decodes the silence that ends a turn', () => {
  it('feeds the recognizer lagMs behind the audio, in order, whatever the chunk sizes', () => {
    const stream = recordingStream();
    const feed = new LaggedRecognitionFeed(stream, 1000, 100, 300);
    feed.write(ms(100, 350));
    expect(stream.heard).to.deep.equal([]);
    feed.write(ms(350, 420));
    expect(stream.heard).to.deep.equal([...ms(100, 120)]);
    for (let t = 420; t < 1000; t += 20) feed.write(ms(t, t + 20));
    expect(stream.heard).to.deep.equal([...ms(100, 700)]);
    expect(feed.partial).to.equal('so far');
  });

  it('at the end of the turn: the speech and a short tail, then the final pass; the rest of the silence is dropped', async () => {
    const stream = recordingStream();
    const feed = new LaggedRecognitionFeed(stream, 1000, 0, 500 - RECOGNITION_TAIL_MS);
    // Speech ends at 1000 ms; the detector says so 500 ms later, when the audio has reached 1500 ms.
    for (let t = 0; t < 1500; t += 20) feed.write(ms(t, t + 20));
    expect(stream.heard.length).to.equal(1500 - (500 - RECOGNITION_TAIL_MS));
    expect(await feed.finish(1000)).to.deep.equal({ text: 'done' });
    expect(stream.finished).to.equal(true);
    expect(stream.heard).to.deep.equal([...ms(0, 1000 + RECOGNITION_TAIL_MS)]);
  });

  it('catching up at a pause gives the speech and its tail sooner, the same audio in the same order as finish would', async () => {
    const stream = recordingStream();
    const feed = new LaggedRecognitionFeed(stream, 1000, 0, 500 - RECOGNITION_TAIL_MS);
    // Speech ends at 1000 ms; 200 ms of silence later a reply is begun on the words so far.
    for (let t = 0; t < 1200; t += 20) feed.write(ms(t, t + 20));
    expect(stream.heard.length).to.equal(1200 - (500 - RECOGNITION_TAIL_MS));
    feed.catchUp(1000);
    expect(stream.heard).to.deep.equal([...ms(0, 1000 + RECOGNITION_TAIL_MS)]);
    // The silence goes on: it is held back again, and the turn's end adds nothing past its tail.
    for (let t = 1200; t < 1500; t += 20) feed.write(ms(t, t + 20));
    expect(stream.heard).to.have.length(1000 + RECOGNITION_TAIL_MS);
    await feed.finish(1000);
    expect(stream.heard).to.deep.equal([...ms(0, 1000 + RECOGNITION_TAIL_MS)]);
  });

  it('an end before what was already fed adds nothing; lag 0 feeds at once', async () => {
    const stream = recordingStream();
    const feed = new LaggedRecognitionFeed(stream, 1000, 0, 0);
    feed.write(ms(0, 800));
    expect(stream.heard).to.have.length(800);
    await feed.finish(100);
    expect(stream.heard).to.have.length(800);
  });

  it('counts positions from the onset it was opened at (the padded start of the turn)', async () => {
    const stream = recordingStream();
    const feed = new LaggedRecognitionFeed(stream, 1000, 2000, 300);
    feed.write(ms(2000, 3000));
    await feed.finish(2500);
    expect(stream.heard).to.deep.equal([...ms(2000, 2500 + RECOGNITION_TAIL_MS)]);
  });

  it('cancel drops what is held and cancels the recognizer', () => {
    const stream = recordingStream();
    const feed = new LaggedRecognitionFeed(stream, 1000, 0, 300);
    feed.write(ms(0, 200));
    feed.cancel();
    expect(stream.cancelled).to.equal(true);
    expect(stream.heard).to.deep.equal([]);
  });

  it('passes on what the recognizer says of its partial: the words, its lag, the speech after the last word it made no word of', () => {
    const stream = recordingStream();
    const feed = new LaggedRecognitionFeed(stream, 1000, 0, 300);
    expect(feed.behindMs).to.equal(0);
    expect(feed.unrecognizedSpeechMs).to.equal(undefined);
    const said = Object.assign(stream, { behindMs: 100, unrecognizedSpeechMs: 140 });
    expect(feed.partial).to.equal('so far');
    expect(feed.behindMs).to.equal(100);
    expect(feed.unrecognizedSpeechMs).to.equal(140);
    said.unrecognizedSpeechMs = 0;
    expect(feed.unrecognizedSpeechMs).to.equal(0);
  });
});
