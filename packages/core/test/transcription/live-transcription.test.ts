import { expect } from 'chai';
import { TranscribeAudio } from '../../src/transcription/transcribe-audio.js';
import { TranscriptionUnavailableError } from '../../src/transcription/errors.js';
import type { Transcriber } from '../../src/transcription/transcript.js';
import { ReferenceAudioTooLongError } from '../../src/voices/errors.js';
import { EngineError } from '../../src/shared/errors.js';
import type { AudioCodec } from '../../src/speech/audio-codec.js';
import { FakeStreamingRecognizer } from '../fakes/realtime-fakes.js';

const principal = { apiKeyId: 'key_1', name: 'test' };
const noCodec = {} as AudioCodec;

/** A transcriber over the fake streaming recognizer, as the server's asTranscriber builds one. */
function streaming(recognizer: FakeStreamingRecognizer): Transcriber {
  return {
    name: 'fake',
    partialResults: true,
    languages: ['en'],
    transcribe: async () => ({ text: 'whole', language: null, duration: 0, segments: [] }),
    openStream: (options, signal) => recognizer.openStream(options, signal),
  };
}

describe('TranscribeAudio.openStream (a recording transcribed while it arrives)', () => {
  it("writes to the recognizer's own stream at the client's rate; partial and finish come from it", async () => {
    const recognizer = new FakeStreamingRecognizer('turn on the light');
    const use = new TranscribeAudio(noCodec, streaming(recognizer), { maxDurationSeconds: 10 });
    expect(use.describe()).to.deep.equal({ name: 'fake', languages: ['en'], partialResults: true });
    const live = use.openStream(principal, { language: 'en', sampleRate: 44100 }, new AbortController().signal);
    expect(live.partial).to.equal('');
    live.write(new Int16Array(44100));
    expect(live.partial).to.equal('turn');
    expect(await live.finish()).to.deep.equal({ text: 'turn on the light', language: 'en', duration: 1 });
    expect(recognizer.streams).to.deep.include({
      samples: 44100,
      sampleRate: 44100,
      state: 'finished',
      signal: recognizer.streams[0]!.signal,
    });
  });

  it('refuses audio past the duration limit before it reaches the recognizer, and releases it', () => {
    const recognizer = new FakeStreamingRecognizer();
    const live = new TranscribeAudio(noCodec, streaming(recognizer), { maxDurationSeconds: 300 }).openStream(
      principal,
      { language: null, sampleRate: 16000, maxDurationSeconds: 2 },
      new AbortController().signal,
    );
    live.write(new Int16Array(16000));
    expect(() => live.write(new Int16Array(16001))).to.throw(ReferenceAudioTooLongError);
    expect(recognizer.streams[0]).to.include({ samples: 16000, state: 'cancelled' });
  });

  it('an empty recording is an empty transcript without a decode; no recognizer is unavailable', async () => {
    const recognizer = new FakeStreamingRecognizer();
    const live = new TranscribeAudio(noCodec, streaming(recognizer), { maxDurationSeconds: 10 }).openStream(
      principal,
      { language: null, sampleRate: 16000 },
      new AbortController().signal,
    );
    expect((await live.finish()).text).to.equal('');
    expect(recognizer.streams[0]!.state).to.equal('cancelled');
    expect(() =>
      new TranscribeAudio(noCodec, null, { maxDurationSeconds: 10 }).openStream(
        principal,
        { language: null, sampleRate: 16000 },
        new AbortController().signal,
      ),
    ).to.throw(TranscriptionUnavailableError);
  });

  it('a transcriber without a stream gets the recording whole at the end; its failure is an engine error', async () => {
    const received: { samples: number; sampleRate: number }[] = [];
    let fail = false;
    const whole: Transcriber = {
      name: 'batch',
      async transcribe(audio) {
        if (fail) throw new Error('model crashed');
        received.push({ samples: audio.samples.length, sampleRate: audio.sampleRate });
        return { text: 'batch text', language: null, duration: 0, segments: [] };
      },
    };
    const use = new TranscribeAudio(noCodec, whole, { maxDurationSeconds: 10 });
    expect(use.describe()).to.deep.equal({ name: 'batch', languages: [], partialResults: false });
    const live = use.openStream(principal, { language: null, sampleRate: 8000 }, new AbortController().signal);
    live.write(new Int16Array(4000));
    live.write(new Int16Array(4000));
    expect(live.partial).to.equal('');
    expect((await live.finish()).text).to.equal('batch text');
    expect(received).to.deep.equal([{ samples: 8000, sampleRate: 8000 }]);
    fail = true;
    const failing = use.openStream(principal, { language: null, sampleRate: 8000 }, new AbortController().signal);
    failing.write(new Int16Array(10));
    let error: unknown;
    await failing.finish().catch((err) => (error = err));
    expect(error).to.be.instanceOf(EngineError);
  });
});
