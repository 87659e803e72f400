import { expect } from 'chai';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { principal, testRecognizers } from './test-recognizers.js';
import { scanRecognitionModels } from '../../src/asr/seq2seq/recognition-model-directory.js';

const sine = (samples: number, rate = 16000) =>
  Int16Array.from({ length: samples }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / rate)));

/**
 * What the published Whisper and Moonshine exports do that the first test models did not: each test
 * builds a model with the real export's shape of the problem (an encoder that rejects fewer than 895
 * samples, weights stored beside the model, a generation config that says is_multilingual).
 */
describe('Whisper and Moonshine on the shapes of the published exports', function () {
  this.timeout(120000);
  const { root, recognizer } = testRecognizers('svc-asr-shapes-');

  describe('Moonshine: the encoder convolutions need at least 895 samples (56 ms)', () => {
    it('a 50 ms realtime turn is too short to hold a word: an empty transcript, not an onnxruntime error', async () => {
      const r = await recognizer('moonshine-short', { family: 'moonshine' });
      const stream = r.openStream({ language: 'en', principal, sampleRate: 16000 }, new AbortController().signal);
      stream.write(sine(800));
      expect(await stream.finish()).to.deep.equal({ text: '' });
      // 895 samples is what the convolutions need: decoded.
      expect((await r.transcribe({ samples: sine(895), sampleRate: 16000 }, { language: 'en', principal })).text).to.equal('hello worldé');
    });

    it('the last window of an upload shorter than 895 samples joins the window before it (no audio lost, no crash)', async () => {
      const r = await recognizer('moonshine-tail', { family: 'moonshine' });
      const result = await r.transcribeDetailed({ samples: sine(30 * 16000 + 300), sampleRate: 16000 }, { language: 'en', principal });
      expect(result.segments.map((s) => [s.start, s.end])).to.deep.equal([[0, 30 + 300 / 16000]]);
      expect(result.text).to.equal('hello worldé');
    });
  });

  it('an encoder stored with external data (encoder_model.onnx + encoder_model.onnx_data, every fp32 export over 2 GB) loads from its path; its size counts both files', async () => {
    const r = await recognizer('whisper-external', { family: 'whisper', externalData: true });
    expect((await r.transcribe({ samples: sine(16000), sampleRate: 16000 }, { language: 'en', principal })).text).to.equal(
      'hello world caf dear',
    );
    const onnx = join(root(), 'whisper-external', 'onnx');
    const sizes = await Promise.all(
      ['encoder_model.onnx', 'encoder_model.onnx_data', 'decoder_model_merged.onnx'].map(async (f) => (await stat(join(onnx, f))).size),
    );
    expect(r.loadedModels()[0]!.bytes).to.equal(sizes.reduce((a, b) => a + b, 0));
    const scan = await scanRecognitionModels(root());
    expect(scan.asr.find((a) => a.manifest.name === 'whisper-external')!.manifest.files).to.include('onnx/encoder_model.onnx_data');
  });

  describe('English-only or multilingual is what generation_config.json says in is_multilingual (as transformers.js reads it)', () => {
    it('is_multilingual false with a lang_to_id left in the config: the English-only two-token prompt', async () => {
      const r = await recognizer('whisper-en-with-langs', {
        family: 'whisper',
        generation: { is_multilingual: false, lang_to_id: { '<|en|>': 42, '<|de|>': 43 }, task_to_id: { transcribe: 45 } },
      });
      expect(r.languages).to.deep.equal(['en']);
      expect((await r.transcribe({ samples: sine(16000), sampleRate: 16000 }, { language: 'de', principal })).text).to.equal(
        'hello world café',
      );
    });

    it('is_multilingual true without lang_to_id: the language and task tokens come from the tokenizer', async () => {
      const r = await recognizer('whisper-multi-no-map', {
        family: 'whisper',
        generation: { is_multilingual: true, lang_to_id: undefined, task_to_id: undefined },
      });
      expect(r.languages).to.have.members(['en', 'de']);
      const result = await r.transcribeDetailed({ samples: sine(16000), sampleRate: 16000 }, { language: 'en', principal });
      expect(result.text).to.equal('hello world caf dear');
      expect(result.language).to.equal('en');
    });
  });
});
