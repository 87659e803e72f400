// @test-tier slow: clones voices and compares them with the real engines
import { expect } from 'chai';
import {
  BaseVoiceLibrary,
  ReferenceAudioLoader,
  SynthesizeSpeech,
  validateSpeechRequest,
  VoiceCatalog,
  VoiceCloningService,
  VoiceProfiler,
  bytesToPcm,
  type SpeakerFeatures,
} from '@svc/core';
import { createHash } from 'node:crypto';
import { DspVoiceAnalyzer, measureSpeaker, RubberbandVoiceConverter, speakerDistance, type SpeakerDistance } from '../src/index.js';
import { FfmpegAudioCodec, SafeHttpMediaFetcher } from '@svc/adapters-media';
import { FliteSpeechSynthesizer, FrancLanguageDetector } from '@svc/adapters-speech-synthesis';
import { int16ToFloat } from '../src/dsp/signal.js';
import { femaleReference, maleReference, wavBytes, type ReferenceSpeaker } from './reference-speakers.js';

/** Different words from both references: the likeness must come from the voice, not the text. */
const TEST_TEXT =
  'There is, according to legend, a boiling pot of gold at one end. People look, but no one ever finds it. ' +
  'When a man looks for something beyond his reach, his friends say he is looking for the pot of gold at the end of the rainbow.';

const fmt = (d: SpeakerDistance) =>
  `${d.total.toFixed(2).padStart(6)}  (timbre ${d.timbre.toFixed(1).padStart(5)}, pitch ${d.pitchSemitones.toFixed(1).padStart(4)} st, vocal tract ${d.formantPercent.toFixed(1).padStart(4)} %)`;

describe('voice cloning is measurable: cloned speech moves toward its reference speaker', function () {
  this.timeout(180_000);
  let flite: FliteSpeechSynthesizer;
  let speech: SynthesizeSpeech;
  let refs: Record<'male' | 'female', ReferenceSpeaker & { features: SpeakerFeatures; base64: string }>;
  let profiler: VoiceProfiler;

  const speak = async (extra: Record<string, unknown>): Promise<SpeakerFeatures> => {
    const result = await speech.execute(validateSpeechRequest({ input: TEST_TEXT, response_format: 'pcm', ...extra }), null);
    const chunks: Uint8Array[] = [];
    for await (const c of result.body) chunks.push(c);
    const pcm = bytesToPcm(Buffer.concat(chunks));
    return measureSpeaker(int16ToFloat(pcm), result.sampleRate, null);
  };

  before(async () => {
    flite = await FliteSpeechSynthesizer.create({ poolSize: 2 });
    const codec = new FfmpegAudioCodec();
    const catalog = new VoiceCatalog([flite]);
    const analyzer = new DspVoiceAnalyzer();
    const converter = await RubberbandVoiceConverter.create();
    profiler = new VoiceProfiler(analyzer, converter, new BaseVoiceLibrary(catalog, analyzer));
    const loader = new ReferenceAudioLoader(new SafeHttpMediaFetcher(), codec, {
      sha256: (d) => createHash('sha256').update(d).digest('hex'),
    });
    const cloner = new VoiceCloningService({} as never, loader, profiler, converter, (p) => catalog.get(p) !== undefined);
    speech = new SynthesizeSpeech(catalog, codec, new FrancLanguageDetector(), cloner);
    const withFeatures = async (ref: ReferenceSpeaker) => ({
      ...ref,
      features: measureSpeaker(int16ToFloat(ref.audio.samples), ref.audio.sampleRate, ref.transcript),
      base64: Buffer.from(wavBytes(ref.audio)).toString('base64'),
    });
    refs = { male: await withFeatures(await maleReference(codec, flite)), female: await withFeatures(await femaleReference()) };
  });
  after(async () => flite?.close());

  it('speech cloned from each reference is closer to it than to the other reference, than the default voice and than its own unconverted base voice', async () => {
    const defaultVoice = await speak({});
    const lines: string[] = ['', '      speaker distance (smaller = more alike; total = timbre/10 + pitch/4 st + vocal tract/6 %)'];
    for (const [own, other] of [
      ['male', 'female'],
      ['female', 'male'],
    ] as const) {
      const ref = refs[own];
      const profile = await profiler.profile(ref.audio, ref.transcript);
      const cloned = await speak({ ref_audio: ref.base64, ref_text: ref.transcript });
      const baseOnly = await speak({ voice: profile.base.preset });
      const toOwn = speakerDistance(cloned, ref.features);
      const toOther = speakerDistance(cloned, refs[other].features);
      const defaultToOwn = speakerDistance(defaultVoice, ref.features);
      const baseToOwn = speakerDistance(baseOnly, ref.features);
      lines.push(
        `      reference ${own}: ${ref.name}; F0 ${ref.features.f0MedianHz} Hz, vocal-tract scale ${ref.features.formantScale}; base preset ${profile.base.preset}`,
        `        cloned  -> own reference    ${fmt(toOwn)}`,
        `        cloned  -> other reference  ${fmt(toOther)}`,
        `        default -> own reference    ${fmt(defaultToOwn)}`,
        `        base ${profile.base.preset.padEnd(3)} unconverted -> own ${fmt(baseToOwn)}`,
        `        cloned F0 ${cloned.f0MedianHz} Hz, vocal-tract scale ${cloned.formantScale}`,
      );
      expect(toOwn.total, `${own}: cloned vs own < cloned vs other`).to.be.lessThan(toOther.total);
      expect(toOwn.total, `${own}: cloned vs own < default vs own`).to.be.lessThan(defaultToOwn.total);
      expect(toOwn.total, `${own}: cloned vs own < unconverted base vs own`).to.be.lessThan(baseToOwn.total);
      expect(Math.abs(toOwn.pitchSemitones), `${own}: F0 reaches the reference`).to.be.lessThan(1);
    }
    console.log(lines.join('\n'));
  });

  it('the two references really are different speakers by the same measure', () => {
    const d = speakerDistance(refs.male.features, refs.female.features);
    expect(d.pitchSemitones).to.be.greaterThan(8);
    expect(d.total).to.be.greaterThan(5);
  });
});
