// @test-tier slow: runs the whisper test model
import { expect } from 'chai';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '@svc/core';
import { TransformersSpeechRecognizer } from '../../src/asr/seq2seq/transformers-speech-recognizer.js';
import { TokenDecoder } from '../../src/asr/seq2seq/token-decoder.js';
import { testWhisperGenerationConfig, testWhisperTokenizer, writeTestAsrFolder, type TestAsrFolderOptions } from '@svc/adapters-testing';

const principal = { keyId: 'k', tenantId: 't' } as unknown as Principal;

/** 16-bit PCM: a sine (mean 0) or a sine on a DC offset (a "loud" encoder output for the test models). */
function pcm(seconds: number, rate: number, offset = 0): Int16Array {
  return Int16Array.from({ length: Math.round(seconds * rate) }, (_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / rate) + offset * 32767),
  );
}

describe('Whisper and Moonshine recognizers (test-built models in the transformers.js ONNX layout)', function () {
  this.timeout(60000);
  let root: string;
  const open: TransformersSpeechRecognizer[] = [];

  before(async () => (root = await mkdtemp(join(tmpdir(), 'svc-asr-'))));
  after(async () => {
    await Promise.all(open.map((r) => r.close()));
    await rm(root, { recursive: true, force: true });
  });

  async function recognizer(name: string, options: TestAsrFolderOptions): Promise<TransformersSpeechRecognizer> {
    await writeTestAsrFolder(join(root, name), options);
    const r = await TransformersSpeechRecognizer.create({ dir: join(root, name) });
    open.push(r);
    return r;
  }

  it('decodes the byte-level (Whisper) and byte-fallback (Moonshine) tokenizers, skipping special tokens', () => {
    const whisper = new TokenDecoder(testWhisperTokenizer(), 'tokenizer.json');
    expect(whisper.decode([41, 42, 45, 48, 2, 3, 4, 5, 40])).to.equal(' hello world café');
    expect(whisper.id('<|de|>')).to.equal(43);
    expect(() => new TokenDecoder({}, '/x/tokenizer.json')).to.throw('/x/tokenizer.json: no model.vocab');
  });

  it('Whisper, merged decoder: prompt <|startoftranscript|> <|en|> <|transcribe|> <|notimestamps|>, suppress and begin-suppress tokens, the cache and use_cache_branch', async () => {
    const r = await recognizer('whisper-merged', { family: 'whisper' });
    expect(r.engine).to.equal('whisper');
    expect(r.languages).to.have.members(['en', 'de']);
    const started = performance.now();
    const result = await r.transcribeDetailed({ samples: pcm(1.5, 16000), sampleRate: 16000 }, { language: 'en', principal });
    console.log(`      whisper test model: ${(performance.now() - started).toFixed(1)} ms for 1.5 s (features, encoder, 4 decoder steps)`);
    // " hello" (the blank is begin-suppressed), " world" (not the suppressed " bad", and " world"
    // beats " there" only on a cached step), " caf", then position 6 says " dear" (4-token prompt), EOS.
    expect(result.text).to.equal('hello world caf dear');
    expect(result.language).to.equal('en');
    expect(result.duration).to.be.closeTo(1.5, 0.01);
    expect(result.segments.map(({ start, end, text }) => ({ start, end, text }))).to.deep.equal([
      { start: 0, end: result.duration, text: 'hello world caf dear' },
    ]);
    // Their confidence figures (values checked in segment-confidence.test.ts).
    expect(result.segments[0]).to.include.keys('avgLogprob', 'compressionRatio', 'noSpeechProb', 'temperature');
  });

  it('Whisper without a language hint detects it from the first decoder pass (the test model prefers <|de|>); a hint it does not know is detected too', async () => {
    const r = await recognizer('whisper-detect', { family: 'whisper' });
    const detected = await r.transcribeDetailed({ samples: pcm(1, 16000), sampleRate: 16000 }, { language: null, principal });
    expect(detected.language).to.equal('de');
    expect(detected.text).to.equal('hello world caf dear');
    expect((await r.transcribeDetailed({ samples: pcm(1, 16000), sampleRate: 16000 }, { language: 'xx', principal })).language).to.equal(
      'de',
    );
    expect((await r.transcribeDetailed({ samples: pcm(1, 16000), sampleRate: 16000 }, { language: 'en-US', principal })).language).to.equal(
      'en',
    );
  });

  it('an English-only Whisper (.en: no language or task tokens) uses the two-token prompt', async () => {
    const r = await recognizer('whisper-en', { family: 'whisper', englishOnly: true });
    expect(r.languages).to.deep.equal(['en']);
    const result = await r.transcribeDetailed({ samples: pcm(1, 16000), sampleRate: 16000 }, { language: 'de', principal });
    expect(result.text).to.equal('hello world café');
  });

  it('the two-graph layout (decoder_model + decoder_with_past_model), a quantized variant and 128 mel bins give the same text', async () => {
    const r = await recognizer('whisper-split', { family: 'whisper', layout: 'split', variant: '_quantized', melBins: 128 });
    expect(r.model.encoderPath).to.match(/encoder_model_quantized\.onnx$/);
    expect((await r.transcribe({ samples: pcm(1, 16000), sampleRate: 16000 }, { language: 'en', principal })).text).to.equal(
      'hello world caf dear',
    );
  });

  it('stops at max_length (generation_config.json)', async () => {
    const dir = join(root, 'whisper-short');
    await writeTestAsrFolder(dir, { family: 'whisper' });
    await writeFile(join(dir, 'generation_config.json'), JSON.stringify({ ...testWhisperGenerationConfig(), max_length: 6 }));
    const r = await TransformersSpeechRecognizer.create({ dir });
    open.push(r);
    expect((await r.transcribe({ samples: pcm(1, 16000), sampleRate: 16000 }, { language: 'en', principal })).text).to.equal('hello world');
  });

  it('audio longer than 30 s is decoded in 30 s windows, one segment each', async () => {
    const r = await recognizer('whisper-long', { family: 'whisper' });
    const result = await r.transcribeDetailed({ samples: pcm(45, 16000), sampleRate: 16000 }, { language: 'en', principal });
    expect(result.segments.map((s) => [s.start, Math.round(s.end)])).to.deep.equal([
      [0, 30],
      [30, 45],
    ]);
    expect(result.text).to.equal('hello world caf dear hello world caf dear');
  });

  for (const layout of ['merged', 'split'] as const) {
    it(`Moonshine (${layout}): input_values is the raw 16 kHz waveform (resampled from 24 kHz), the encoder output reaches the decoder`, async () => {
      const r = await recognizer(`moonshine-${layout}`, { family: 'moonshine', layout });
      expect(r.engine).to.equal('moonshine');
      expect((await r.transcribe({ samples: pcm(1, 24000), sampleRate: 24000 }, { language: 'en', principal })).text).to.equal(
        'hello worldé',
      );
      // A positive mean of the waveform makes the test encoder's output positive: " loud", then EOS.
      expect((await r.transcribe({ samples: pcm(1, 24000, 0.5), sampleRate: 24000 }, { language: null, principal })).text).to.equal('loud');
    });
  }

  it('streams a turn: buffers the audio written in pieces and decodes it at finish(); a cancelled turn rejects', async () => {
    const r = await recognizer('whisper-stream', { family: 'whisper' });
    const stream = r.openStream({ language: 'en', principal, sampleRate: 24000 }, new AbortController().signal);
    const audio = pcm(1, 24000);
    for (let i = 0; i < audio.length; i += 480) stream.write(audio.subarray(i, i + 480));
    expect(stream.partial).to.equal('');
    expect(await stream.finish()).to.deep.equal({ text: 'hello world caf dear' });

    const cancelled = r.openStream({ language: 'en', principal, sampleRate: 24000 }, new AbortController().signal);
    cancelled.write(audio);
    cancelled.cancel();
    await cancelled.finish().then(
      () => expect.fail('finish after cancel'),
      (err: Error) => expect(err.name).to.equal('AbortError'),
    );
    const controller = new AbortController();
    const aborted = r.openStream({ language: 'en', principal, sampleRate: 24000 }, controller.signal);
    aborted.write(audio);
    controller.abort();
    await aborted.finish().then(
      () => expect.fail('finish after abort'),
      (err: Error) => expect(err.name).to.equal('AbortError'),
    );
  });

  it('a missing or incomplete model is an error naming the path', async () => {
    const missing = join(root, 'nothing-here');
    await TransformersSpeechRecognizer.create({ dir: missing }).then(
      () => expect.fail(),
      (e: Error) => expect(e.message).to.include(missing),
    );
    const dir = join(root, 'incomplete');
    await writeTestAsrFolder(dir, { family: 'whisper' });
    await unlink(join(dir, 'onnx', 'decoder_model_merged.onnx'));
    await TransformersSpeechRecognizer.create({ dir }).then(
      () => expect.fail(),
      (e: Error) => expect(e.message).to.include(join(dir, 'onnx', 'decoder_model_merged.onnx')),
    );
    await unlink(join(dir, 'onnx', 'encoder_model.onnx'));
    await TransformersSpeechRecognizer.create({ dir }).then(
      () => expect.fail(),
      (e: Error) => expect(e.message).to.include(join(dir, 'onnx', 'encoder_model.onnx')),
    );
    await unlink(join(dir, 'tokenizer.json'));
    await TransformersSpeechRecognizer.create({ dir }).then(
      () => expect.fail(),
      (e: Error) => expect(e.message).to.include(join(dir, 'tokenizer.json')),
    );
    await writeFile(join(dir, 'onnx', 'encoder_model.onnx'), 'not a model');
    await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(testWhisperTokenizer()));
    await writeTestAsrFolder(join(root, 'donor'), { family: 'whisper' });
    await writeFile(join(dir, 'onnx', 'decoder_model_merged.onnx'), 'garbage');
    await TransformersSpeechRecognizer.create({ dir }).then(
      () => expect.fail(),
      (e: Error) => expect(e.message).to.match(/encoder_model\.onnx: onnxruntime cannot load it/),
    );
  });
});
