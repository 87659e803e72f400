import { expect } from 'chai';
import { SynthesizeSpeech } from '../../src/speech/synthesize-speech.js';
import { VoiceCatalog } from '../../src/speech/voice-catalog.js';
import { validateSpeechRequest, type SpeechRequestInput } from '../../src/speech/speech-request.js';
import { ServiceError } from '../../src/shared/errors.js';
import { INNER_EDGES } from '../../src/speech/join-silence.js';
import type { ClonedVoice, VoiceCloner } from '../../src/speech/cloned-voice.js';
import { KeywordDetector, preset, TaggingCodec, ToneSynthesizer } from '../fakes/fake-speech.js';

const principal = { apiKeyId: 'key_1', name: 'test' };

function setup(cloner: VoiceCloner | null = null) {
  const flite = new ToneSynthesizer('flite', [preset('slt', 'flite', 'en-us'), preset('rms', 'flite', 'en-us')]);
  const espeak = new ToneSynthesizer('espeak', [preset('espeak-fr', 'espeak', 'fr'), preset('espeak-de', 'espeak', 'de')]);
  const catalog = new VoiceCatalog([flite, espeak]);
  const useCase = new SynthesizeSpeech(catalog, new TaggingCodec(), new KeywordDetector(), cloner, undefined, { sampleRate: 16000 });
  return { flite, espeak, useCase };
}

async function collect(body: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const c of body) out.push(c);
  return out;
}

const run = async (useCase: SynthesizeSpeech, input: SpeechRequestInput, signal?: AbortSignal) => {
  const result = await useCase.execute(validateSpeechRequest(input), principal, signal);
  const chunks = await collect(result.body);
  return { result, chunks, bytes: chunks.reduce((n, c) => n + c.length, 0) };
};

/** An engine that pads every utterance with 200 ms of silence on each side, as Flite does (~160-230 ms). */
function paddedEngineSpeech(): SynthesizeSpeech {
  const pad = 3200;
  const flite = new ToneSynthesizer('flite', [preset('slt', 'flite', 'en-us')]);
  const padded = {
    engine: 'flite',
    voices: () => flite.voices(),
    synthesize: async (request: Parameters<ToneSynthesizer['synthesize']>[0]) => {
      const r = await flite.synthesize(request);
      const samples = new Int16Array(r.samples.length + 2 * pad);
      samples.set(r.samples, pad);
      const words = r.words.map((w) => ({ ...w, start: w.start + pad / 16000, end: w.end + pad / 16000 }));
      return { ...r, samples, words };
    },
  };
  return new SynthesizeSpeech(new VoiceCatalog([padded]), new TaggingCodec(), new KeywordDetector(), null, undefined, {
    sampleRate: 16000,
  });
}
const CLAUSE_INPUT = 'The morning train was late again, so Maria walked to the office along the river. It rained.';

function pcmOf(chunks: Uint8Array[]): Int16Array {
  const bytes = Buffer.concat(chunks); // pcm leaves as it is (no codec)
  return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
}

/** The runs of digital silence in the audio, in ms at 16 kHz (single zero crossings of the tone do not count). */
function silenceRunsMs(pcm: Int16Array): number[] {
  const silences: number[] = [];
  for (let i = 0, run = 0; i <= pcm.length; i++) {
    if (i < pcm.length && pcm[i] === 0 && (pcm[i - 1] === 0 || pcm[i + 1] === 0)) run++;
    else if (run > 0) (silences.push(run), (run = 0));
  }
  return silences.map((n) => Math.round(n / 16));
}

async function identifierOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError);
    return (err as ServiceError).identifier;
  }
  throw new Error('expected a ServiceError');
}

describe('SynthesizeSpeech', () => {
  it('speaks English with the preferred English preset for `default`', async () => {
    const { flite, espeak, useCase } = setup();
    const { result } = await run(useCase, { input: 'Hello, the weather is fine.', response_format: 'pcm' });
    expect(result.voice.name).to.equal('slt');
    expect(flite.calls).to.have.length(1);
    expect(espeak.calls).to.have.length(0);
  });

  it("names the API key as each engine request's tenant (engines serve keys in turn); the server's own speech names none", async () => {
    const { flite, useCase } = setup();
    await run(useCase, { model: 'svc-audio-v3-tts', input: 'Hello there. How are you today?', voice: 'slt' });
    expect(flite.calls.map((c) => c.tenant)).to.deep.equal(flite.calls.map(() => 'key_1')).and.to.not.be.empty;
    const own = await useCase.execute(validateSpeechRequest({ model: 'svc-audio-v3-tts', input: 'Hello.', voice: 'slt' }), null);
    await collect(own.body);
    expect(flite.calls.at(-1)).to.not.have.property('tenant');
  });

  it('speaks French text with a French voice (detected language)', async () => {
    const { espeak, useCase } = setup();
    const { result } = await run(useCase, { input: 'Bonjour, la vie est belle.', response_format: 'pcm' });
    expect(result.language).to.equal('fr');
    expect(result.voice.name).to.equal('espeak-fr');
    expect(espeak.calls[0]!.voice.name).to.equal('espeak-fr');
  });

  it('lets tn_language override detection', async () => {
    const { useCase } = setup();
    const { result } = await run(useCase, { input: 'Hello there, the end.', tn_language: 'de', response_format: 'pcm' });
    expect(result.voice.name).to.equal('espeak-de');
  });

  it('uses a named preset as is, and 404s an unknown one', async () => {
    const { useCase } = setup();
    const { result } = await run(useCase, { input: 'Bonjour la vie', voice: 'rms', response_format: 'pcm' });
    expect(result.voice.name).to.equal('rms');
    expect(await identifierOf(run(useCase, { input: 'hi', voice: 'nobody' }))).to.equal('voice_not_found');
  });

  it('reports custom voices as not found and inline cloning as unavailable without a cloner', async () => {
    const { useCase } = setup();
    expect(await identifierOf(run(useCase, { input: 'hi', voice: 'voice_abc' }))).to.equal('voice_not_found');
    expect(await identifierOf(run(useCase, { input: 'hi', ref_audio: 'AAAA' }))).to.equal('not_implemented');
  });

  it('splits into sentences, never speaks tags, and inserts pauses', async () => {
    const { flite, useCase } = setup();
    const { bytes } = await run(useCase, {
      input: '<|emotion:enthusiasm|>Hello there. <|prosody:pause|>The end is near!',
      response_format: 'pcm',
    });
    const spoken = flite.calls.map((c) => c.text);
    expect(spoken).to.deep.equal(['Hello there.', 'The end is near!']);
    expect(spoken.join(' ')).not.to.contain('<|');
    const speechSamples = ('Hello there.'.length + 'The end is near!'.length) * 0.01 * 16000;
    // The pause adds silence: the output is longer than the speech alone.
    expect(bytes / 2).to.be.greaterThan(speechSamples * 0.9 + 0.3 * 16000);
  });

  it('pcm bypasses the codec; other formats go through it', async () => {
    const { useCase } = setup();
    const pcm = await run(useCase, { input: 'Hello there.', response_format: 'pcm' });
    expect(new TextDecoder().decode(pcm.chunks[0]!.slice(0, 4))).not.to.equal('pcm:');
    const mp3 = await run(useCase, { input: 'Hello there.' });
    expect(new TextDecoder().decode(mp3.chunks[0]!)).to.equal('mp3:');
    expect(mp3.result.contentType).to.equal('audio/mpeg');
  });

  it('offsets word timings across sentences and counts samples', async () => {
    const { useCase } = setup();
    const { result } = await run(useCase, { input: 'One two. Three four.', response_format: 'pcm', timestamps: true });
    expect(result.words.map((w) => w.word)).to.deep.equal(['One', 'two.', 'Three', 'four.']);
    for (let i = 1; i < result.words.length; i++) expect(result.words[i]!.start).to.be.at.least(result.words[i - 1]!.end - 1e-9);
    expect(result.words[2]!.start).to.be.closeTo('One two.'.length * 0.01, 0.01);
    expect(result.stats.samples / 16000).to.be.closeTo(result.words.at(-1)!.end, 0.01);
  });

  it('stops synthesizing when aborted', async () => {
    const { flite, useCase } = setup();
    const abort = new AbortController();
    const input = Array.from({ length: 20 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const result = await useCase.execute(validateSpeechRequest({ input, response_format: 'pcm' }), principal, abort.signal);
    const it = result.body[Symbol.asyncIterator]();
    await it.next();
    abort.abort();
    let failed = false;
    try {
      for (let r = await it.next(); !r.done; r = await it.next());
    } catch {
      failed = true;
    }
    expect(failed).to.equal(true);
    expect(flite.calls.length).to.be.lessThan(5);
  });

  it('cuts the first sentence of a stream at a clause so the first bytes leave sooner', async () => {
    const { flite, useCase } = setup();
    const input = 'The morning train was late again, so Maria walked to the office along the river. It rained.';
    await run(useCase, { input, response_format: 'pcm', stream: true });
    expect(flite.calls.map((c) => c.text)).to.deep.equal([
      'The morning train was late again,',
      'so Maria walked to the office along the river.',
      'It rained.',
    ]);
    flite.calls.length = 0;
    await run(useCase, { input, response_format: 'pcm' });
    expect(flite.calls).to.have.length(2);
  });

  it("joins the first clause of a stream to the rest of its sentence with a comma's pause, not two utterances' silence", async () => {
    const { chunks } = await run(paddedEngineSpeech(), { input: CLAUSE_INPUT, response_format: 'pcm', stream: true });
    // Opening 10 ms (the engine's 200 trimmed); the cut: 50 + 50 ms; between the two sentences: 200 + 200 ms; closing 10 ms.
    expect(silenceRunsMs(pcmOf(chunks))).to.deep.equal([10, 100, 400, 10]);
  });

  it('starts and ends the speech with the voice: the padding of the first and last utterance is trimmed, sentence pauses stay', async () => {
    const { chunks } = await run(paddedEngineSpeech(), { input: CLAUSE_INPUT, response_format: 'pcm' });
    expect(silenceRunsMs(pcmOf(chunks))).to.deep.equal([10, 400, 10]);
    const one = await run(paddedEngineSpeech(), { input: 'It rained.', response_format: 'pcm' });
    expect(silenceRunsMs(pcmOf(one.chunks))).to.deep.equal([10, 10]);
  });

  it('moves word timings with the trimmed opening and ends none after the audio', async () => {
    const { result, chunks } = await run(paddedEngineSpeech(), { input: 'One two. Three four.', response_format: 'pcm', timestamps: true });
    const seconds = pcmOf(chunks).length / 16000;
    // The tone of "One two." (8 chars, 80 ms) starts 10 ms in; its words share it.
    expect(result.words[0]!.start).to.be.closeTo(0.01, 0.001);
    expect(result.words[1]!.end).to.be.closeTo(0.09, 0.001);
    // "Three" starts after the first sentence's 200 ms tail and the second's 200 ms head.
    expect(result.words[2]!.start).to.be.closeTo(0.09 + 0.4, 0.001);
    expect(result.words.at(-1)!.end).to.be.at.most(seconds + 1e-9);
    expect(result.stats.samples).to.equal(pcmOf(chunks).length);
  });

  it('keeps a pause the input opens with, and leaves the edges untouched when asked', async () => {
    const { chunks } = await run(paddedEngineSpeech(), { input: '<|prosody:pause=300ms|> It rained.', response_format: 'pcm' });
    // The asked-for 300 ms, then the engine's own opening (the speech began with the pause, not with it): 300 + 200.
    expect(silenceRunsMs(pcmOf(chunks))).to.deep.equal([500, 10]);
    const inner = await paddedEngineSpeech().speak(validateSpeechRequest({ input: 'It rained.' }), principal, undefined, INNER_EDGES);
    const pcm: Int16Array[] = [];
    for await (const c of inner.samples) pcm.push(c);
    expect(silenceRunsMs(Int16Array.from(pcm.flatMap((c) => [...c])))).to.deep.equal([200, 200]);
  });

  it('normalizes text by default and speaks it as written with enable_tn false', async () => {
    const { flite, useCase } = setup();
    await run(useCase, { input: 'It costs $5 at 3:45 pm.', response_format: 'pcm' });
    expect(flite.calls[0]!.text).to.equal('It costs five dollars at three forty-five P M.');
    flite.calls.length = 0;
    await run(useCase, { input: 'It costs $5 at 3:45 pm.', response_format: 'pcm', enable_tn: false });
    expect(flite.calls[0]!.text).to.equal('It costs $5 at 3:45 pm.');
  });

  it('renders sfx tags as generated sound between the spoken parts; unknown ones add nothing', async () => {
    const { flite, useCase } = setup();
    const plain = (await run(useCase, { input: 'Hello there. Goodbye now.', response_format: 'pcm' })).bytes;
    const withBeep = (await run(useCase, { input: 'Hello there. <|sfx:beep|> Goodbye now.', response_format: 'pcm' })).bytes;
    const withUnknown = (await run(useCase, { input: 'Hello there. <|sfx:trumpet-solo|> Goodbye now.', response_format: 'pcm' })).bytes;
    expect((withBeep - plain) / 2 / 16000).to.be.closeTo(0.2, 0.02); // the beep lasts 200 ms
    expect(withUnknown).to.equal(plain);
    expect(flite.calls.map((c) => c.text).join(' ')).not.to.contain('sfx');
  });

  it('applies speed through prosody', async () => {
    const { flite, useCase } = setup();
    await run(useCase, { input: 'Hello there.', speed: 2, response_format: 'pcm' });
    expect(flite.calls[0]!.prosody.rate).to.equal(2);
  });

  it('applies instructions as tags opening the input and reports them; without instructions nothing is reported', async () => {
    const { flite, useCase } = setup();
    const { result } = await run(useCase, {
      input: 'Hello there.',
      instructions: 'Please speak slowly and calmly.',
      response_format: 'pcm',
    });
    expect(result.appliedInstructions).to.deep.equal(['emotion:calm', 'prosody:slow']);
    expect(flite.calls[0]!.prosody.rate).to.be.closeTo(0.9 * 0.8, 1e-9);
    expect(flite.calls[0]!.text).to.equal('Hello there.');
    const ignored = await run(useCase, { input: 'Hello there.', instructions: 'Sound like a pirate.', response_format: 'pcm' });
    expect(ignored.result.appliedInstructions).to.deep.equal([]);
    expect((await run(useCase, { input: 'Hello there.', response_format: 'pcm' })).result.appliedInstructions).to.equal(null);
  });

  it("speaks OpenAI's voice names with the voice they alias, in the language asked for", async () => {
    const { flite, espeak, useCase } = setup();
    const english = await run(useCase, { input: 'Hello there.', voice: 'alloy', response_format: 'pcm' });
    expect(english.result.voice.name).to.equal('slt');
    expect(flite.calls).to.have.length(1);
    const french = await run(useCase, { input: 'Bonjour à tous.', voice: 'alloy', tn_language: 'fr', response_format: 'pcm' });
    expect(french.result.voice.name).to.equal('espeak-fr');
    expect(french.result.language).to.equal('fr');
    expect(espeak.calls).to.have.length(1);
    expect(await identifierOf(run(useCase, { input: 'こんにちは', voice: 'alloy', tn_language: 'ja' }))).to.equal(
      'voice_language_unsupported',
    );
  });

  it('the default voice refuses a tn_language no voice speaks, rather than speaking English under its name', async () => {
    const { flite, useCase } = setup();
    expect(await identifierOf(run(useCase, { input: 'Hello there my friend.', tn_language: 'xx' }))).to.equal('voice_language_unsupported');
    expect(await identifierOf(run(useCase, { input: 'こんにちは', tn_language: 'ja' }))).to.equal('voice_language_unsupported');
    expect(flite.calls).to.have.length(0);
    // A language a voice speaks, in any region, is spoken as before.
    const british = await run(useCase, { input: 'Hello there.', tn_language: 'en-GB', response_format: 'pcm' });
    expect(british.result.voice.name).to.equal('slt');
  });

  it('runs cloned voices through the base preset and the conversion', async () => {
    let processed = 0;
    let flushed = false;
    const cloned: ClonedVoice = {
      basePreset: 'rms',
      rate: 1.25,
      startConversion: () => ({
        async process(chunk) {
          processed += chunk.length;
          return chunk.map((s) => s >> 1);
        },
        async flush() {
          flushed = true;
          return new Int16Array(10);
        },
      }),
    };
    const cloner: VoiceCloner = {
      registered: async (p, id) => {
        expect(p).to.deep.equal(principal);
        expect(id).to.equal('voice_x');
        return cloned;
      },
      inline: async () => cloned,
    };
    const { flite, useCase } = setup(cloner);
    const { result, bytes } = await run(useCase, { input: 'Hello there.', voice: 'voice_x', response_format: 'pcm' });
    expect(result.voice.name).to.equal('rms');
    expect(flite.calls[0]!.prosody.rate).to.equal(1.25);
    expect(processed).to.be.greaterThan(0);
    expect(flushed).to.equal(true);
    expect(bytes / 2).to.equal(processed + 10);
  });
});
