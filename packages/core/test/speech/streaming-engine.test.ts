import { expect } from 'chai';
import { SynthesizeSpeech } from '../../src/speech/synthesize-speech.js';
import { VoiceCatalog } from '../../src/speech/voice-catalog.js';
import { validateSpeechRequest } from '../../src/speech/speech-request.js';
import type {
  PresetVoice,
  SpeechSynthesizer,
  SynthesisRequest,
  SynthesisResult,
  SynthesisStream,
  WordTiming,
} from '../../src/speech/speech-synthesizer.js';
import { KeywordDetector, preset, TaggingCodec } from '../fakes/fake-speech.js';

/** An engine that streams each sentence in 3 chunks of 100 samples, released one by one by the test. */
class GatedStreamingEngine implements SpeechSynthesizer {
  readonly engine = 'streamer';
  private gates: (() => void)[] = [];
  released = 0;
  wholeCalls = 0;
  constructor(
    private readonly presets: PresetVoice[],
    private readonly failAfter = Infinity,
  ) {}
  voices() {
    return this.presets;
  }
  async synthesize(): Promise<SynthesisResult> {
    this.wholeCalls++;
    throw new Error('the streaming path should be used');
  }
  /** Lets every waiting chunk go. */
  release(): void {
    this.released++;
    for (const g of this.gates.splice(0)) g();
  }
  synthesizeStream(request: SynthesisRequest, signal?: AbortSignal): SynthesisStream {
    const self = this;
    let seconds = 0;
    return {
      chunks: (async function* () {
        for (let i = 0; i < 3; i++) {
          await new Promise<void>((resolve) => self.gates.push(resolve));
          signal?.throwIfAborted();
          if (self.released > self.failAfter) throw new Error('upstream broke mid-stream');
          seconds += 100 / request.sampleRate;
          yield new Int16Array(100).fill(1000);
        }
      })(),
      words: (): WordTiming[] => [{ word: request.text.split(' ')[0]!, start: 0, end: seconds }],
    };
  }
}

function setup(failAfter?: number) {
  const engine = new GatedStreamingEngine([preset('up-a', 'streamer', 'en-us')], failAfter);
  const synthesized: number[] = [];
  const useCase = new SynthesizeSpeech(
    new VoiceCatalog([engine]),
    new TaggingCodec(),
    new KeywordDetector(),
    null,
    { synthesized: (e) => void synthesized.push(e.audioSeconds) },
    { sampleRate: 16000 },
  );
  return { engine, useCase, synthesized };
}

describe('SynthesizeSpeech with an engine that streams within a sentence', () => {
  it('passes each chunk on as it arrives (before the sentence is complete), words offset per sentence', async () => {
    const { engine, useCase, synthesized } = setup();
    const result = await useCase.execute(
      validateSpeechRequest({ input: 'First sentence here. Second one now.', voice: 'up-a', response_format: 'pcm', stream: true }),
      null,
    );
    const reader = result.body[Symbol.asyncIterator]();
    const first = reader.next();
    await new Promise((r) => setTimeout(r, 5));
    engine.release();
    const chunk = await first;
    // the first 100 samples arrived while the engine still holds the other two of that sentence
    expect((chunk.value as Uint8Array).length).to.equal(200);
    let bytes = 200;
    const rest = (async () => {
      for (let r = await reader.next(); !r.done; r = await reader.next()) bytes += (r.value as Uint8Array).length;
    })();
    for (let i = 0; i < 6 && bytes < 1200; i++) {
      await new Promise((r) => setTimeout(r, 5));
      engine.release();
    }
    await rest;
    expect(bytes).to.equal(2 * 3 * 100 * 2);
    expect(engine.wholeCalls).to.equal(0);
    expect(synthesized).to.have.length(2);
    expect(synthesized[0]).to.be.closeTo(300 / 16000, 1e-9);
  });

  it('word timings of streamed sentences are offset by the audio before them', async () => {
    const { engine, useCase } = setup();
    const timer = setInterval(() => engine.release(), 2);
    try {
      const result = await useCase.execute(
        validateSpeechRequest({ input: 'First sentence here. Second one now.', voice: 'up-a', timestamps: true }),
        null,
      );
      for await (const _ of result.body) void _;
      expect(result.words.map((w) => w.word)).to.deep.equal(['First', 'Second']);
      expect(result.words[1]!.start).to.be.closeTo(300 / 16000, 1e-9);
    } finally {
      clearInterval(timer);
    }
  });

  it('a failure mid-stream ends the response with that error after the audio already sent', async () => {
    const { engine, useCase } = setup(1);
    const timer = setInterval(() => engine.release(), 2);
    try {
      const result = await useCase.execute(
        validateSpeechRequest({ input: 'Only one sentence here.', voice: 'up-a', response_format: 'pcm', stream: true }),
        null,
      );
      let bytes = 0;
      const error = await (async () => {
        for await (const c of result.body) bytes += c.length;
      })().then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).to.equal('upstream broke mid-stream');
      expect(bytes).to.equal(200);
    } finally {
      clearInterval(timer);
    }
  });
});
