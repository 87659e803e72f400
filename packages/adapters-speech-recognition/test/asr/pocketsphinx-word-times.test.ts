// @test-tier slow: decodes real speech with pocketsphinx
import { expect } from 'chai';
import type { Principal } from '@svc/core';
import { PocketsphinxSpeechRecognizer } from '../../src/index.js';
import { concat, librivoxClip, silenceMs, speechEdgesMs } from '@svc/adapters-testing';

const principal = {} as Principal;

describe('PocketsphinxSpeechRecognizer.transcribeDetailed: word times from the decoder segmentation', function () {
  this.timeout(60000);
  let recognizer: PocketsphinxSpeechRecognizer;
  before(async () => (recognizer = await PocketsphinxSpeechRecognizer.create({ decoders: 1, warmDecoders: 1 })));
  after(() => recognizer.close());

  it('every recognized word with its start and end, in order, inside the speech; fillers and variants removed', async () => {
    const clip = librivoxClip('0920');
    // One second of silence first: the word times must move by it.
    const samples = concat(silenceMs(1000), clip.samples);
    const result = await recognizer.transcribeDetailed({ samples, sampleRate: 16000 }, { language: 'en', principal });
    expect(result.duration).to.be.closeTo(samples.length / 16000, 0.001);
    expect(result.segments).to.have.length(1);
    expect(result.segments[0]).to.deep.include({ start: 0, end: result.duration, text: result.text });
    const words = result.words!;
    expect(words.map((w) => w.word).join(' ')).to.equal(result.text);
    for (const w of words) {
      expect(w.word).to.match(/^[a-z']+$/);
      expect(w.end).to.be.greaterThan(w.start);
    }
    for (let i = 1; i < words.length; i++) expect(words[i]!.start).to.be.at.least(words[i - 1]!.end - 0.001);
    const edges = speechEdgesMs(clip.samples);
    expect(words[0]!.start).to.be.closeTo(1 + edges.startMs / 1000, 0.3);
    expect(words.at(-1)!.end).to.be.closeTo(1 + edges.endMs / 1000, 0.3);
    // Word times count from the start of each recording, not of the decoder's whole life.
    const again = await recognizer.transcribeDetailed({ samples, sampleRate: 16000 }, { language: 'en', principal });
    expect(again.words![0]!.start).to.be.closeTo(words[0]!.start, 0.15);
  });

  it('at another input rate the audio is resampled first (times stay in seconds of the input)', async () => {
    const clip = librivoxClip('0930');
    const at8k = Int16Array.from({ length: Math.floor(clip.samples.length / 2) }, (_, i) => clip.samples[2 * i]!);
    const result = await recognizer.transcribeDetailed({ samples: at8k, sampleRate: 8000 }, { language: null, principal });
    expect(result.duration).to.be.closeTo(clip.samples.length / 16000, 0.01);
    expect(result.words!.at(-1)!.end).to.be.at.most(result.duration + 0.01);
    expect(result.text.split(' ').length).to.be.at.least(4);
  });
});
