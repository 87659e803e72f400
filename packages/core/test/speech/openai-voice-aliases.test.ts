import { expect } from 'chai';
import { OPENAI_VOICE_NAMES } from '../../src/speech/openai-voice-aliases.js';
import { VoiceCatalog } from '../../src/speech/voice-catalog.js';
import { ServiceError } from '../../src/shared/errors.js';
import { preset, ToneSynthesizer } from '../fakes/index.js';

const flite = () =>
  new ToneSynthesizer('flite', [
    preset('slt', 'flite', 'en-us', 'female'),
    preset('rms', 'flite', 'en-us', 'male'),
    preset('awb', 'flite', 'en-gb-scotland', 'male'),
    preset('kal16', 'flite', 'en-us', 'male'),
  ]);
const espeak = () =>
  new ToneSynthesizer('espeak', [preset('espeak-en-us', 'espeak', 'en-us', 'male'), preset('espeak-fr', 'espeak', 'fr', 'male')]);
const kokoro = () =>
  new ToneSynthesizer('kokoro', [
    preset('kokoro-af_bella', 'kokoro', 'en-us', 'female'),
    preset('kokoro-af_sky', 'kokoro', 'en-us', 'female'),
    preset('kokoro-am_adam', 'kokoro', 'en-us', 'male'),
    preset('kokoro-am_michael', 'kokoro', 'en-us', 'male'),
    preset('kokoro-bm_george', 'kokoro', 'en-gb', 'male'),
    preset('kokoro-ff_siwis', 'kokoro', 'fr-fr', 'female'),
  ]);
const targets = (catalog: VoiceCatalog) => Object.fromEntries(catalog.aliases().map((a) => [a.name, a.target.name]));

describe("OpenAI's voice names as preset aliases", () => {
  it('every name is a preset: listed, never custom, resolving to an installed voice', () => {
    const catalog = new VoiceCatalog([flite(), espeak()]);
    expect(catalog.aliases().map((a) => a.name)).to.deep.equal(OPENAI_VOICE_NAMES.map((v) => v.name));
    for (const { name } of OPENAI_VOICE_NAMES) {
      expect(catalog.isPreset(name), name).to.equal(true);
      expect(catalog.names()).to.include(name);
      expect(catalog.get(name)?.engine).to.equal('flite');
    }
    expect(catalog.list().map((v) => v.name)).not.to.include('alloy'); // engines' presets only
  });

  it("with the embedded engines: OpenAI's gender, the default voice for the neutral alloy, the British accent for fable", () => {
    expect(targets(new VoiceCatalog([flite(), espeak()]))).to.deep.equal({
      alloy: 'slt',
      ash: 'rms',
      ballad: 'rms',
      coral: 'slt',
      echo: 'rms',
      fable: 'awb',
      nova: 'slt',
      onyx: 'rms',
      sage: 'slt',
      shimmer: 'slt',
      verse: 'rms',
      marin: 'slt',
      cedar: 'rms',
    });
  });

  it('neural voices first, shared out among the aliases of a gender', () => {
    const catalog = new VoiceCatalog([flite(), espeak(), kokoro()]);
    const t = targets(catalog);
    expect(Object.values(t).every((name) => name.startsWith('kokoro-'))).to.equal(true);
    expect([t.coral, t.nova, t.sage]).to.deep.equal(['kokoro-af_bella', 'kokoro-af_sky', 'kokoro-af_bella']);
    // The regional variant of the server's default English voice (en-us) first; fable wants British.
    expect([t.ash, t.ballad, t.echo, t.onyx]).to.deep.equal(['kokoro-am_adam', 'kokoro-am_michael', 'kokoro-am_adam', 'kokoro-am_michael']);
    expect(t.fable).to.equal('kokoro-bm_george');
  });

  it("another language picks that language's best voice of the gender; one nobody speaks is voice_language_unsupported", () => {
    const catalog = new VoiceCatalog([flite(), espeak(), kokoro()]);
    expect(catalog.resolve('nova', 'fr')!.name).to.equal('kokoro-ff_siwis');
    // Kokoro's only French voice is female: a male alias takes espeak's rather than the other gender.
    expect(catalog.resolve('onyx', 'fr-ca')!.name).to.equal('espeak-fr');
    expect(catalog.resolve('nova', 'en-gb')!.name).to.equal(catalog.get('nova')!.name);
    expect(catalog.resolve('nova', null)!.name).to.equal(catalog.get('nova')!.name);
    expect(catalog.resolve('slt', 'fr')!.name).to.equal('slt'); // a real preset keeps its voice
    try {
      catalog.resolve('nova', 'ja');
      expect.fail('expected an error');
    } catch (err) {
      expect(err).to.be.instanceOf(ServiceError);
      expect((err as ServiceError).identifier).to.equal('voice_language_unsupported');
      expect((err as ServiceError).param).to.equal('tn_language');
    }
  });

  it("an engine's own preset of the same name keeps it; an upstream server's voice of that name is the alias", () => {
    const own = new ToneSynthesizer('piper', [preset('alloy', 'piper', 'en-us', 'neutral')]);
    const catalog = new VoiceCatalog([flite(), own]);
    expect(catalog.aliases().map((a) => a.name)).not.to.include('alloy');
    expect(catalog.get('alloy')!.engine).to.equal('piper');
    const upstream = new ToneSynthesizer('upstream', [
      { ...preset('upstream-echo', 'upstream', 'en', 'neutral'), engineVoice: 'echo' },
      { ...preset('upstream-nova', 'upstream', 'en', 'neutral'), engineVoice: 'nova' },
    ]);
    const t = targets(new VoiceCatalog([flite(), kokoro(), upstream]));
    expect([t.echo, t.nova, t.onyx]).to.deep.equal(['upstream-echo', 'upstream-nova', 'kokoro-am_michael']);
  });
});
