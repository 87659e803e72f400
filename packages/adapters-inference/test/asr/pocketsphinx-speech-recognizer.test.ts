import { expect } from 'chai';
import type { Principal } from '@svc/core';
import { PocketsphinxSpeechRecognizer, SpeexResampler } from '../../src/index.js';
import { concat, librivoxClip, librivoxClips, silenceMs } from '../vad/librivox.js';
import { childProcesses } from './child-processes.js';
import { wordErrorRate } from './word-error-rate.js';

// The recognizer ignores the principal; any value of the right shape will do.
const principal = {} as Principal;
const english = { language: 'en', principal };

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('Timed out waiting for a condition.');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('PocketsphinxSpeechRecognizer (real pocketsphinx on real speech)', function () {
  this.timeout(60000);
  let recognizer: PocketsphinxSpeechRecognizer;
  before(async () => {
    recognizer = await PocketsphinxSpeechRecognizer.create();
  });

  // Per sentence the WER ranges from ~20 % to 75 % (0930: "amiable himself" -> "a real boy i'm self
  // taught"), so the bound applies to the five together and to the one sentence used below.
  it('transcribes the LibriVox sentences with a word error rate under 50 %, reporting latency', async () => {
    const clips = librivoxClips();
    const hypotheses: string[] = [];
    const latencies: number[] = [];
    for (const clip of clips) {
      const started = performance.now();
      const { text } = await recognizer.transcribe({ samples: clip.samples, sampleRate: 16000 }, english);
      latencies.push(performance.now() - started);
      expect(text).to.equal(text.trim().toLowerCase());
      hypotheses.push(text);
      const wer = wordErrorRate(clip.transcript, text);
      console.log(`      ${clip.id.slice(-4)} (${(clip.samples.length / 16000).toFixed(1)} s) ${latencies.at(-1)!.toFixed(0)} ms, WER ${(wer * 100).toFixed(0)} %: "${text}"`);
    }
    const total = wordErrorRate(clips.map((c) => c.transcript).join(' '), hypotheses.join(' '));
    const audioSeconds = clips.reduce((s, c) => s + c.samples.length / 16000, 0);
    const latencySeconds = latencies.reduce((a, b) => a + b, 0) / 1000;
    console.log(
      `      overall WER ${(total * 100).toFixed(1)} %, mean latency ${((latencySeconds / clips.length) * 1000).toFixed(0)} ms per utterance (process start included), real-time factor ${(latencySeconds / audioSeconds).toFixed(2)}`,
    );
    expect(total).to.be.lessThan(0.5);
    const sentence = clips.findIndex((c) => c.id.endsWith('0920'));
    expect(wordErrorRate(clips[sentence]!.transcript, hypotheses[sentence]!)).to.be.lessThan(0.5);
  });

  it('transcribes 24 kHz input (resampled to 16 kHz) as well as 16 kHz', async () => {
    const clip = librivoxClip('0920');
    const at24k = (await SpeexResampler.create()).resample(clip.samples, 16000, 24000);
    const { text } = await recognizer.transcribe({ samples: at24k, sampleRate: 24000 }, english);
    expect(wordErrorRate(clip.transcript, text), text).to.be.lessThan(0.5);
  });

  it('still decodes with the English model when told the language is French', async () => {
    const clip = librivoxClip('0920');
    const { text } = await recognizer.transcribe({ samples: clip.samples, sampleRate: 16000 }, { language: 'fr', principal });
    expect(wordErrorRate(clip.transcript, text), text).to.be.lessThan(0.5);
  });

  it('gives empty text for silence, and for no audio at all', async () => {
    expect(await recognizer.transcribe({ samples: silenceMs(2000), sampleRate: 16000 }, english)).to.deep.equal({ text: '' });
    expect(await recognizer.transcribe({ samples: new Int16Array(0), sampleRate: 16000 }, english)).to.deep.equal({ text: '' });
  });

  it('kills the process on abort: it rejects with AbortError and no pocketsphinx child is left', async () => {
    const long = concat(...librivoxClips().map((c) => c.samples));
    const controller = new AbortController();
    const pending = recognizer.transcribe({ samples: long, sampleRate: 16000 }, english, controller.signal);
    await waitFor(() => childProcesses('pocketsphinx').length > 0, 5000);
    controller.abort();
    const abortedAt = performance.now();
    let error: unknown;
    try {
      await pending;
    } catch (err) {
      error = err;
    }
    // Decoding the 25 s of speech takes ~8 s: settling this fast means the process was killed.
    expect(performance.now() - abortedAt).to.be.lessThan(1000);
    expect((error as Error)?.name).to.equal('AbortError');
    expect(childProcesses('pocketsphinx')).to.deep.equal([]);
  });

  it('rejects at once for an already aborted signal, starting no process', async () => {
    const controller = new AbortController();
    controller.abort();
    let error: unknown;
    try {
      await recognizer.transcribe({ samples: librivoxClip('0880').samples, sampleRate: 16000 }, english, controller.signal);
    } catch (err) {
      error = err;
    }
    expect((error as Error)?.name).to.equal('AbortError');
    expect(childProcesses('pocketsphinx')).to.deep.equal([]);
  });

  it('runs at most 2 recognizer processes at once for a burst of 5 turns', async () => {
    const clip = librivoxClip('0880');
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, childProcesses('pocketsphinx').length)), 20);
    try {
      const results = await Promise.all(
        Array.from({ length: 5 }, () => recognizer.transcribe({ samples: clip.samples, sampleRate: 16000 }, english)),
      );
      expect(new Set(results.map((r) => r.text)).size).to.equal(1);
    } finally {
      clearInterval(sampler);
    }
    expect(most).to.equal(2);
    expect(recognizer.load).to.deep.equal({ running: 0, waiting: 0 });
  });

  it('create() says to run npm run setup when the binary is missing', async () => {
    let error: unknown;
    try {
      await PocketsphinxSpeechRecognizer.create({ binary: '/nonexistent/pocketsphinx_continuous' });
    } catch (err) {
      error = err;
    }
    expect((error as Error)?.message).to.match(/npm run setup/);
  });
});
