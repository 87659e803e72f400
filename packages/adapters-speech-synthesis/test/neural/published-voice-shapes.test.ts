import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEUTRAL_PROSODY, type PresetVoice, type SpeechSynthesizer } from '@svc/core';
import { EspeakPhonemizer } from '../../src/models/espeak-phonemizer.js';
import { scanVoiceModels } from '../../src/models/model-directory.js';
import { readKokoroModel } from '../../src/kokoro/kokoro-model.js';
import { KokoroSpeechSynthesizer } from '../../src/kokoro/kokoro-speech-synthesizer.js';
import type { KokoroEnglishG2P } from '../../src/kokoro/kokoro-phonemes.js';
import { PiperSpeechSynthesizer } from '../../src/piper/piper-speech-synthesizer.js';
import { PIPER_PUNCTUATION, writeKokoroModel, writePiperVoice } from '@svc/adapters-testing';
import { KOKORO_TEST_MODEL, PIPER_TEST_MODEL } from '@svc/adapters-testing';

/** Dominant frequency from zero crossings (the test models output a pure tone). */
function toneHz(samples: Int16Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return (crossings / 2) * (rate / samples.length);
}

/** Piper test model: every id lasts `hop` samples; ids are bos, pad, each phoneme + pad, eos. */
const piperSamples = (phonemes: string) => (2 + 2 * [...phonemes].length + 1) * PIPER_TEST_MODEL.hop;
/** Kokoro test model: every token lasts `hop` samples at speed 1; tokens are the symbols between two pads. */
const kokoroSamples = (symbols: string, hop: number = KOKORO_TEST_MODEL.hop) => ([...symbols].length + 2) * hop;

/**
 * The published Piper and Kokoro voices were trained on espeak-ng phonemes processed in particular
 * ways (piper-phonemize; misaki's EspeakG2P; kokoro-js for English). These tests speak through the
 * engines with test-built models whose output length and pitch show which ids reached the model,
 * on text whose espeak-ng phonemes have the shape of the problem.
 */
describe('Piper and Kokoro inputs as their trainers built them', function () {
  this.timeout(120000);
  let dir: string;
  let phonemizer: EspeakPhonemizer;
  const engines: SpeechSynthesizer[] = [];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-voice-shapes-'));
    phonemizer = await EspeakPhonemizer.create();
  });
  after(async () => {
    await Promise.all(engines.map((e) => e.close?.()));
    await phonemizer.release();
    await rm(dir, { recursive: true, force: true });
  });

  const speak = async (engine: SpeechSynthesizer, voice: string, text: string, sampleRate: number) => {
    const preset: PresetVoice = engine.voices().find((v) => v.name === voice)!;
    expect(preset, voice).to.not.equal(undefined);
    return (await engine.synthesize({ text, voice: preset, prosody: { ...NEUTRAL_PROSODY }, sampleRate, wordTimings: false })).samples;
  };

  async function piper(name: string, options: Parameters<typeof writePiperVoice>[2]): Promise<PiperSpeechSynthesizer> {
    const voiceDir = join(dir, name);
    await writePiperVoice(voiceDir, name, { sampleRate: 22050, ...options });
    const synth = await PiperSpeechSynthesizer.create({ models: (await scanVoiceModels(voiceDir)).piper, phonemizer });
    engines.push(synth);
    return synth;
  }

  async function kokoro(
    name: string,
    voices: string[],
    options: { extraSymbols: string[]; hop?: number; englishG2P?: KokoroEnglishG2P },
  ): Promise<KokoroSpeechSynthesizer> {
    const modelDir = join(dir, name);
    await writeKokoroModel(modelDir, Object.fromEntries(voices.map((v) => [v, () => 0])), options);
    const synth = await KokoroSpeechSynthesizer.create({
      models: [await readKokoroModel(modelDir, name)],
      phonemizer,
      englishG2P: options.englishG2P,
    });
    engines.push(synth);
    return synth;
  }

  describe('Piper (piper-phonemize)', () => {
    it('keeps the clause punctuation the voices were trained with: "Hello, world?" is həlˈoʊ, wˈɜːld? (the comma and question mark are ids)', async () => {
      const synth = await piper('en_US-punct-medium', { extraPhonemes: PIPER_PUNCTUATION });
      expect((await speak(synth, 'piper-en_us-punct-medium', 'Hello, world?', 22050)).length).to.equal(piperSamples('həlˈoʊ, wˈɜːld?'));
      expect((await speak(synth, 'piper-en_us-punct-medium', 'Hello world', 22050)).length).to.equal(piperSamples('həlˈoʊ wˈɜːld'));
    });

    it('decomposes the phonemes (NFD) as piper-phonemize does: German "Ich." is ɪ c U+0327 . (the id map has no precomposed ç)', async () => {
      const synth = await piper('de_DE-nfd-medium', {
        espeakVoice: 'de',
        languageCode: 'de_DE',
        extraPhonemes: [...PIPER_PUNCTUATION, 'c', '\u0327'],
      });
      // espeak_TextToPhonemes (piper-phonemize's call) gives "Ich." alone no stress mark
      expect((await speak(synth, 'piper-de_de-nfd-medium', 'Ich.', 22050)).length).to.equal(piperSamples('ɪc\u0327.'));
    });

    it("takes clause ends and word joins from espeak itself: the comma after the word espeak ended the clause on, no space inside espeak's joins", async () => {
      const synth = await piper('en_US-joins-medium', { extraPhonemes: [...PIPER_PUNCTUATION, 'f', 'θ', 'ŋ', 'b', 'ɔ', 'ɑ', 'ˌ'] });
      const voice = 'piper-en_us-joins-medium';
      // espeak joins "was a", "in the", "to be" into one word each; the text's spaces would misplace every later comma
      expect((await speak(synth, voice, 'It was a well-known fact, I think.', 22050)).length).to.equal(
        piperSamples('ɪt wʌzɐ wˈɛlnˈoʊn fˈækt, aɪ θˈɪŋk.'),
      );
      expect((await speak(synth, voice, 'I went in the house to be alone.', 22050)).length).to.equal(
        piperSamples('aɪ wɛnt ɪnðə hˈaʊs təbi ɐlˈoʊn.'),
      );
      expect((await speak(synth, voice, "It's fine, isn't it?", 22050)).length).to.equal(piperSamples('ɪts fˈaɪn, ˈɪzənt ɪt?'));
      // espeak places the second "be" inside "to": the comma still follows it
      expect((await speak(synth, voice, 'To be or not to be, that is it.', 22050)).length).to.equal(
        piperSamples('təbi ɔːɹ nˌɑːt tə bˈiː, ðˈæt ɪz ɪt.'),
      );
    });

    it('reads the punctuation piper-phonemize reads: a spaced dash is a semicolon, "..." and "…" write nothing, "U.S." ends no clause', async () => {
      const synth = await piper('en_US-marks-medium', { extraPhonemes: [...PIPER_PUNCTUATION, 'ʃ', 'p', 'j', 'u', 'ɑ', 'f', 'ˌ'] });
      const voice = 'piper-en_us-marks-medium';
      expect((await speak(synth, voice, 'Wait — no.', 22050)).length).to.equal(piperSamples('wˈeɪt; nˈoʊ.'));
      // after "…" espeak_TextToPhonemes starts a new clause: "what" has a secondary stress there
      expect((await speak(synth, voice, 'Wait... what?', 22050)).length).to.equal(piperSamples('wˈeɪtwˌʌt?'));
      expect((await speak(synth, voice, 'Wait… what?', 22050)).length).to.equal(piperSamples('wˈeɪtwˌʌt?'));
      expect((await speak(synth, voice, 'He said "stop." Then', 22050)).length).to.equal(piperSamples('hiː sˈɛd stˈɑːp. ðˈɛn'));
    });

    it('times every written word where espeak joins words: "tout le monde" is one espeak word, three timings', async () => {
      const synth = await piper('fr_FR-joined-medium', {
        espeakVoice: 'fr',
        languageCode: 'fr_FR',
        extraPhonemes: [...PIPER_PUNCTUATION, 'b', 'u', 'ʒ', 'ʁ', 'ɔ', '\u0303'],
      });
      const preset = synth.voices().find((v) => v.name === 'piper-fr_fr-joined-medium')!;
      const result = await synth.synthesize({
        text: 'Bonjour tout le monde.',
        voice: preset,
        prosody: { ...NEUTRAL_PROSODY },
        sampleRate: 22050,
        wordTimings: true,
      });
      expect(result.words.map((w) => w.word)).to.deep.equal(['Bonjour', 'tout', 'le', 'monde.']);
      result.words.forEach((w, i) => {
        expect(w.end, w.word).to.be.greaterThan(w.start);
        if (i > 0) expect(w.start, w.word).to.be.at.least(result.words[i - 1]!.end - 1e-9);
      });
      // no space between the joined words: bɔ̃ʒˈuʁ tulmˈɔ̃d.
      expect(result.samples.length).to.equal(piperSamples('bɔ\u0303ʒˈuʁ tulmˈɔ\u0303d.'));
    });

    it("merges the config's vowel_clusters into one id (piper1-gpl): 'o' 'ʊ' is the one phoneme 'oʊ'", async () => {
      const plain = await piper('en_US-plain-medium', {});
      const merged = await piper('en_US-clusters-medium', { vowelClusters: [['o', 'ʊ']] });
      expect((await speak(plain, 'piper-en_us-plain-medium', 'Hello world', 22050)).length).to.equal(piperSamples('həlˈoʊ wˈɜːld'));
      // one phoneme fewer: "oʊ" is a single id
      expect((await speak(merged, 'piper-en_us-clusters-medium', 'Hello world', 22050)).length).to.equal(
        piperSamples('həlˈoʊ wˈɜːld') - 2 * PIPER_TEST_MODEL.hop,
      );
    });

    it('removes espeak-ng language switch flags: French "Le weekend" is lə- wiːkˈɛnd, not (en)wiːkˈɛnd(fr)', async () => {
      const synth = await piper('fr_FR-flags-medium', {
        espeakVoice: 'fr',
        languageCode: 'fr_FR',
        extraPhonemes: [...PIPER_PUNCTUATION, 'f', 'r'],
      });
      expect((await speak(synth, 'piper-fr_fr-flags-medium', 'Le weekend', 22050)).length).to.equal(piperSamples('lə- wiːkˈɛnd'));
    });
  });

  describe('Kokoro (misaki EspeakG2P for e/f/h/i/p; kokoro-js for English)', () => {
    const tied = ['p', 'b', 'u', 'ʃ', 'ʦ', 'ʧ', 'ʤ', 'A', 'I', 'O', 'W', 'Y', 'ɔ', '\u0303', 'ʒ', 'ʁ', ',', '.', '?', '!'];

    it('Italian and Spanish tied sounds are single symbols: "pizza" is pˈiʦːa, "mucho" is mˈuʧo (misaki maps t^s -> ʦ, t^ʃ -> ʧ)', async () => {
      const synth = await kokoro('kokoro-tied', ['if_test', 'em_test'], { extraSymbols: tied });
      expect((await speak(synth, 'kokoro-if_test', 'pizza', 24000)).length).to.equal(kokoroSamples('pˈiʦːa'));
      expect((await speak(synth, 'kokoro-em_test', 'mucho', 24000)).length).to.equal(kokoroSamples('mˈuʧo'));
    });

    it('French voices speak (espeak-ng names the voice fr; fr-fr is a language): "Bonjour." is bɔ̃ʒˈuʁ. with its punctuation', async () => {
      const synth = await kokoro('kokoro-fr', ['ff_test'], { extraSymbols: tied });
      expect((await speak(synth, 'kokoro-ff_test', 'Bonjour.', 24000)).length).to.equal(kokoroSamples('bɔ\u0303ʒˈuʁ.'));
    });

    it('British voices speak (en-gb is a language; the voice is en), with kokoro-js replacements: "loch" is lˈɒk (x -> k)', async () => {
      const hop = 2400;
      const synth = await kokoro('kokoro-gb', ['bf_test'], { extraSymbols: ['ɒ', 'x', 'b', 'ɑ'], hop });
      const samples = await speak(synth, 'kokoro-bf_test', 'loch', 24000);
      expect(samples.length).to.equal(kokoroSamples('lˈɒk', hop));
    });

    it('American voices get kokoro-js replacements: "Bach" is bˈɑːk (x -> k), heard in the pitch the ids give', async () => {
      const hop = 2400;
      const synth = await kokoro('kokoro-us', ['af_test'], { extraSymbols: ['b', 'ɑ', 'x'], hop });
      const samples = await speak(synth, 'kokoro-af_test', 'Bach', 24000);
      // ids: pad 0, b 28, ˈ 5, ɑ 29, ː 10, k 21 (x would be 30), pad 0; the tone is 150 + 4 * mean(ids) (style 0).
      const ids = [0, 28, 5, 29, 10, 21, 0];
      expect(samples.length).to.equal(ids.length * hop);
      expect(toneHz(samples, 24000)).to.be.closeTo(
        KOKORO_TEST_MODEL.baseHz + (KOKORO_TEST_MODEL.idHz * ids.reduce((a, b) => a + b, 0)) / ids.length,
        1.5,
      );
    });

    it('English as kokoro-js spells it by default, as misaki does when asked: "Hello, world" is həlˈoʊ, wˈɜːld or həlˈO, wˈɜɹld', async () => {
      const js = await kokoro('kokoro-en-js', ['af_js'], { extraSymbols: tied });
      const misaki = await kokoro('kokoro-en-misaki', ['af_misaki'], { extraSymbols: tied, englishG2P: 'misaki' });
      expect((await speak(js, 'kokoro-af_js', 'Hello, world', 24000)).length).to.equal(kokoroSamples('həlˈoʊ, wˈɜːld'));
      expect((await speak(misaki, 'kokoro-af_misaki', 'Hello, world', 24000)).length).to.equal(kokoroSamples('həlˈO, wˈɜɹld'));
    });

    it('keeps the punctuation runs between words as kokoro-js does: a dash without spaces, an ellipsis, quotes', async () => {
      const synth = await kokoro('kokoro-punct', ['af_punct'], { extraSymbols: [...tied, '—', '…', '"', 'ɡ', 'ʊ'] });
      // words espeak joined keep no space: "in the" is ɪnðə
      expect((await speak(synth, 'kokoro-af_punct', 'Then—no… in the "end".', 24000)).length).to.equal(
        kokoroSamples('ðˈɛn—nˈoʊ… ɪnðɪ "ˈɛnd".'),
      );
    });

    it('never feeds more than 512 tokens (510 symbols and the two pads), spaces and punctuation included', async () => {
      const synth = await kokoro('kokoro-long', ['af_long'], { extraSymbols: tied });
      const samples = await speak(synth, 'kokoro-af_long', new Array(120).fill('hello there,').join(' '), 24000);
      expect(samples.length).to.be.at.most(512 * KOKORO_TEST_MODEL.hop);
      expect(samples.length).to.be.at.least(480 * KOKORO_TEST_MODEL.hop);
    });

    it('Mandarin (z) voices are skipped like Japanese (j): they were trained on misaki ZH G2P, not espeak IPA', async () => {
      const modelDir = join(dir, 'kokoro-zh');
      await writeKokoroModel(modelDir, { zf_test: () => 0, jf_test: () => 0, af_test: () => 0 });
      const model = await readKokoroModel(modelDir, 'kokoro-zh');
      expect(model.voices.map((v) => v.name)).to.deep.equal(['af_test']);
    });
  });
});
