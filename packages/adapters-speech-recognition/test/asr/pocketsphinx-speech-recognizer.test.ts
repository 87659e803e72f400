// @test-tier paced: speaks clips at real-time pace and mostly waits; its 60 s turns time out beside CPU-bound decoders on a loaded machine
import { expect } from 'chai';
import type { Principal } from '@svc/core';
import { PocketsphinxSpeechRecognizer, type DecoderWait } from '../../src/index.js';
import { resampleInt16 } from '@svc/adapters-runtime';
import { childProcesses, concat, librivoxClip, librivoxClips, silenceMs } from '@svc/adapters-testing';
import { wordErrorRate } from './word-error-rate.js';

// The recognizer ignores the principal; any value of the right shape will do.
const principal = {} as Principal;
const english = { language: 'en', principal };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `samples` in 20 ms pieces at real-time pace, as a session does while the user speaks. */
async function speak(stream: { write(s: Int16Array): void }, samples: Int16Array, rate = 16000, speedUp = 1): Promise<void> {
  const step = rate / 50;
  for (let i = 0; i < samples.length; i += step) {
    stream.write(samples.subarray(i, i + step));
    if ((i / step) % 10 === 9) await sleep(200 / speedUp);
  }
}

/** A different channel: 4x louder and low-passed, which moves the cepstral mean far from clean speech. */
function muffle(samples: Int16Array): Int16Array {
  const out = new Int16Array(samples.length);
  let y = 0;
  for (let i = 0; i < samples.length; i++) {
    y += 0.3 * (samples[i]! - y);
    out[i] = Math.max(-32768, Math.min(32767, Math.round(y * 4)));
  }
  return out;
}

describe('PocketsphinxSpeechRecognizer (warm python3-pocketsphinx decoders on real speech)', function () {
  this.timeout(60000);
  let recognizer: PocketsphinxSpeechRecognizer;
  const waits: DecoderWait[] = [];
  // Decoder processes of other recognizers in this mocha process (servers of other tests) are not ours.
  let others = new Set<number>();
  const ours = () => childProcesses('svc-decoder').filter((pid) => !others.has(pid));
  before(async () => {
    others = new Set(childProcesses('svc-decoder'));
    const started = performance.now();
    recognizer = await PocketsphinxSpeechRecognizer.create({ decoders: 3, warmDecoders: 2, onDecoderWait: (w) => waits.push(w) });
    console.log(`      2 decoders loaded in ${(performance.now() - started).toFixed(0)} ms (once per server)`);
  });
  after(() => recognizer.close());

  it('transcribes the LibriVox sentences one-shot with a word error rate under 40 %, no process per call', async () => {
    expect(ours()).to.have.length(2);
    const clips = librivoxClips();
    const hypotheses: string[] = [];
    for (const clip of clips) {
      const started = performance.now();
      const { text } = await recognizer.transcribe({ samples: clip.samples, sampleRate: 16000 }, english);
      expect(text).to.equal(text.trim().toLowerCase());
      hypotheses.push(text);
      console.log(
        `      ${clip.id.slice(-4)} ${(performance.now() - started).toFixed(0)} ms one-shot, WER ${(wordErrorRate(clip.transcript, text) * 100).toFixed(0)} %: "${text}"`,
      );
    }
    const total = wordErrorRate(clips.map((c) => c.transcript).join(' '), hypotheses.join(' '));
    console.log(`      overall WER ${(total * 100).toFixed(1)} %`);
    expect(total).to.be.lessThan(0.4);
    expect(ours()).to.have.length(2);
  });

  it('streams: partial words while the user speaks, then a final pass far shorter than decoding the clip at once', async () => {
    const clip = librivoxClip('0920');
    // The baseline, measured in this run on this machine: the same clip decoded in one go.
    const oneShotStarted = performance.now();
    await recognizer.transcribe({ samples: clip.samples, sampleRate: 16000 }, { ...english, speaker: {} });
    const oneShotMs = performance.now() - oneShotStarted;
    const stream = recognizer.openStream({ ...english, sampleRate: 16000 }, new AbortController().signal);
    // At real-time pace, as a user speaks: the decoder keeps up, so only the final pass remains.
    await speak(stream, clip.samples);
    await sleep(200);
    expect(stream.partial.split(' ').length).to.be.greaterThan(5);
    const started = performance.now();
    const { text } = await stream.finish();
    const finalMs = performance.now() - started;
    console.log(`      final pass ${finalMs.toFixed(0)} ms (the whole clip at once: ${oneShotMs.toFixed(0)} ms): "${text}"`);
    // the decoder kept up while the user spoke: what is left is a small part of the whole decode
    expect(finalMs).to.be.lessThan(oneShotMs / 3);
    // One sentence on a decoder whose cepstral mean has not adapted to this reader yet: 20-55 %.
    expect(wordErrorRate(clip.transcript, text), text).to.be.lessThan(0.6);
  });

  it('reports how far behind real time its busy decoders are (audio sent, not yet decoded), 0 once they caught up', async () => {
    const clip = librivoxClip('0870');
    const stream = recognizer.openStream({ ...english, sampleRate: 16000 }, new AbortController().signal);
    // Seconds of audio at once (faster than real time): the decoder has all of it to work through.
    for (let i = 0; i < clip.samples.length; i += 320) stream.write(clip.samples.subarray(i, i + 320));
    await sleep(20);
    const behind = recognizer.load.backlogMs;
    expect(behind).to.be.greaterThan(1000);
    expect(behind).to.be.at.most((clip.samples.length / 16000) * 1000);
    const { text } = await stream.finish();
    expect(wordErrorRate(clip.transcript, text), text).to.be.lessThan(0.6);
    expect(recognizer.load.backlogMs).to.equal(0);
  });

  it('the same words from 20 ms and 100 ms appends (the decoder gets 100 ms pieces either way)', async () => {
    const clip = librivoxClip('0930');
    const heard: string[] = [];
    for (const step of [320, 1600, 333]) {
      const session = { ...english, speaker: {} };
      const stream = recognizer.openStream({ ...session, sampleRate: 16000 }, new AbortController().signal);
      for (let i = 0; i < clip.samples.length; i += step) stream.write(clip.samples.subarray(i, i + step));
      heard.push((await stream.finish()).text);
    }
    expect(heard[1]).to.equal(heard[0]);
    expect(heard[2]).to.equal(heard[0]);
  });

  it('transcribes 24 kHz and 48 kHz input (resampled to 16 kHz) as well as 16 kHz', async () => {
    const clip = librivoxClip('0920');
    for (const rate of [24000, 48000]) {
      // The second turn of a session, as in a conversation (the first adapts the speaker normalization).
      const session = { ...english, speaker: {} };
      await recognizer.transcribe({ samples: resampleInt16(librivoxClip('0870').samples, 16000, rate), sampleRate: rate }, session);
      const { text } = await recognizer.transcribe({ samples: resampleInt16(clip.samples, 16000, rate), sampleRate: rate }, session);
      expect(wordErrorRate(clip.transcript, text), `${rate}: ${text}`).to.be.lessThan(0.4);
    }
  });

  it('still decodes with the English model when told the language is French', async () => {
    const clip = librivoxClip('0920');
    const session = { language: 'fr', principal, speaker: {} };
    await recognizer.transcribe({ samples: librivoxClip('0870').samples, sampleRate: 16000 }, session);
    const { text } = await recognizer.transcribe({ samples: clip.samples, sampleRate: 16000 }, session);
    expect(wordErrorRate(clip.transcript, text), text).to.be.lessThan(0.4);
  });

  it('gives empty text for silence, and for no audio at all', async () => {
    expect(await recognizer.transcribe({ samples: silenceMs(2000), sampleRate: 16000 }, english)).to.deep.equal({ text: '' });
    expect(await recognizer.transcribe({ samples: new Int16Array(0), sampleRate: 16000 }, english)).to.deep.equal({ text: '' });
  });

  it('an aborted turn rejects with AbortError at once and gives its decoder back', async () => {
    const long = concat(...librivoxClips().map((c) => c.samples));
    const controller = new AbortController();
    const pending = recognizer.transcribe({ samples: long, sampleRate: 16000 }, english, controller.signal);
    await sleep(50);
    controller.abort();
    const abortedAt = performance.now();
    const error = await pending.then(
      () => null,
      (err: unknown) => err,
    );
    expect((error as Error)?.name).to.equal('AbortError');
    // The decoder drops the rest of the utterance; it is free again for the next turn.
    await sleep(50);
    const { text } = await recognizer.transcribe({ samples: librivoxClip('0880').samples, sampleRate: 16000 }, english);
    expect(text).to.include('young man');
    console.log(`      abort settled in ${(performance.now() - abortedAt).toFixed(0)} ms`);
    expect(recognizer.load.busy).to.equal(0);
  });

  it('a turn abandoned during its final pass with seconds of audio still to decode frees its decoder without a kill or a model load', async () => {
    const pidsBefore = ours().sort();
    const replacedBefore = recognizer.load.replaced;
    const long = concat(...librivoxClips().map((c) => c.samples));
    const controller = new AbortController();
    const stream = recognizer.openStream({ ...english, sampleRate: 16000 }, controller.signal);
    for (let i = 0; i < long.length; i += 320) stream.write(long.subarray(i, i + 320));
    const result = stream.finish();
    await sleep(50);
    expect(recognizer.load.backlogMs, 'seconds of audio wait to be decoded').to.be.greaterThan(5000);
    const abortedAt = performance.now();
    controller.abort();
    const error = await result.then(
      () => null,
      (err: unknown) => err,
    );
    expect((error as Error)?.name).to.equal('AbortError');
    // Back in the pool once the few pieces in flight are decoded (not the 24 s queued behind them).
    while (recognizer.load.busy > 0) await sleep(10);
    console.log(`      decoder free ${(performance.now() - abortedAt).toFixed(0)} ms after the abort`);
    expect(recognizer.load.backlogMs).to.equal(0);
    expect(recognizer.load.replaced, 'no decoder killed and restarted').to.equal(replacedBefore);
    expect(ours().sort()).to.deep.equal(pidsBefore);
    const { text } = await recognizer.transcribe({ samples: librivoxClip('0880').samples, sampleRate: 16000 }, english);
    expect(text).to.include('young man');
  });

  it('rejects at once for an already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await recognizer
      .transcribe({ samples: librivoxClip('0880').samples, sampleRate: 16000 }, english, controller.signal)
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect((error as Error)?.name).to.equal('AbortError');
  });

  it('grows to its 3 decoders for 5 simultaneous turns: the other 2 wait, and the waits are reported', async () => {
    const clip = librivoxClip('0880');
    const waitsBefore = waits.length;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => recognizer.transcribe({ samples: clip.samples, sampleRate: 16000 }, english)),
    );
    // Every turn without a session starts from the model's cepstral mean, whatever its decoder heard before.
    for (const r of results) expect(r.text).to.equal(results[0]!.text);
    expect(wordErrorRate(clip.transcript, results[0]!.text)).to.be.lessThan(0.5);
    expect(waits.length - waitsBefore).to.equal(2);
    expect(recognizer.load).to.include({ size: 3, started: 3, busy: 0, waiting: 0 });
    expect(recognizer.load.waits).to.be.at.least(2);
    expect(ours()).to.have.length(3);
  });

  it("one session's speaker normalization never shapes another's decoding on the same pooled decoder", async () => {
    const single = await PocketsphinxSpeechRecognizer.create({ decoders: 1, warmDecoders: 1 });
    try {
      // Debian's sphinxbase build: the helper's layout check passes (false would make the server warn at start).
      expect(single.speakerNormalization, 'the decoder lets the helper set its cepstral mean').to.equal(true);
      const probe = librivoxClip('0930');
      const turn = (speaker: object, samples: Int16Array) => single.transcribe({ samples, sampleRate: 16000 }, { ...english, speaker });
      const fresh = (await turn({}, probe.samples)).text;
      // Another caller, loud and muffled (a different channel), talks for five turns on the one decoder.
      const other = {};
      for (const clip of librivoxClips()) await turn(other, muffle(clip.samples));
      const afterOther = (await turn({}, probe.samples)).text;
      expect(afterOther).to.equal(fresh);
      // That caller's own next turn does build on its earlier ones: the same audio decodes differently.
      const sameSpeaker = (await turn(other, probe.samples)).text;
      console.log(`      new session: "${fresh}"; after the other caller: "${afterOther}"; the other caller's next turn: "${sameSpeaker}"`);
      expect(sameSpeaker).to.not.equal(fresh);
    } finally {
      single.close();
    }
  });

  it("a streamed turn is heard the same on a decoder that just decoded another caller's turn as on a fresh one (the front end's noise estimate starts over)", async () => {
    // A caller's padded onset: 280 ms of digital silence, the sentence, 200 ms of tail (what a
    // server-VAD turn feeds). With the noise estimate of the decoder's previous utterance this turn
    // was heard as "had he", "addie" or "can be a bull wall" depending on what came before.
    const probe = concat(silenceMs(280), librivoxClip('0920').samples, silenceMs(200));
    const streamed = async (decoder: PocketsphinxSpeechRecognizer, samples: Int16Array) => {
      const stream = decoder.openStream({ ...english, speaker: {}, sampleRate: 16000 }, new AbortController().signal);
      for (let i = 0; i < samples.length; i += 320) stream.write(samples.subarray(i, i + 320));
      return (await stream.finish()).text;
    };
    const single = await PocketsphinxSpeechRecognizer.create({ decoders: 1, warmDecoders: 1 });
    try {
      const fresh = await streamed(single, probe);
      for (const other of ['0880', '0870', '0930']) {
        await streamed(single, librivoxClip(other).samples);
        expect(await streamed(single, probe), `after ${other}`).to.equal(fresh);
      }
      expect(wordErrorRate(librivoxClip('0920').transcript, fresh)).to.be.below(0.5);
    } finally {
      single.close();
    }
  });

  it('loads a decoder for each session that reserves one, up to its size, before their turns; they stay warm after', async () => {
    const pool = await PocketsphinxSpeechRecognizer.create({ decoders: 3, warmDecoders: 1, onDecoderWait: (w) => waits.push(w) });
    try {
      const release = [pool.reserve(), pool.reserve()];
      expect(pool.load.started, 'one warm, one loading for the second session').to.equal(2);
      release.push(pool.reserve(), pool.reserve());
      expect(pool.load.started, 'never more than the pool size').to.equal(3);
      // Three sessions' turns at once: the decoders loaded ahead decode them.
      const clip = librivoxClip('0880');
      const results = await Promise.all([0, 1, 2].map(() => pool.transcribe({ samples: clip.samples, sampleRate: 16000 }, english)));
      for (const r of results) expect(r.text).to.include('young man');
      for (const r of release) r();
      release[0]!();
      expect(pool.load.started, 'released: the decoders stay warm').to.equal(3);
    } finally {
      pool.close();
    }
  });

  it('stops the decoders loaded for sessions once they go unused, and their processes end; the warm one stays', async () => {
    const before = new Set(ours());
    const pool = await PocketsphinxSpeechRecognizer.create({ decoders: 3, warmDecoders: 1, idleDecoderStopMs: 300 });
    try {
      const release = [pool.reserve(), pool.reserve(), pool.reserve()];
      const clip = librivoxClip('0880');
      const results = await Promise.all([0, 1, 2].map(() => pool.transcribe({ samples: clip.samples, sampleRate: 16000 }, english)));
      for (const r of results) expect(r.text).to.include('young man');
      const loaded = ours().filter((pid) => !before.has(pid));
      expect(loaded, 'one decoder process per session').to.have.length(3);
      for (const r of release) r();
      for (let i = 0; i < 50 && pool.load.started > 1; i++) await sleep(50);
      expect(pool.load.started).to.equal(1);
      expect(pool.load.stoppedIdle).to.equal(2);
      for (let i = 0; i < 20 && ours().filter((pid) => loaded.includes(pid)).length > 1; i++) await sleep(50);
      expect(
        ours().filter((pid) => loaded.includes(pid)),
        'their processes ended',
      ).to.have.length(1);
      // Needed again: forked again, and they decode.
      const again = await Promise.all([0, 1].map(() => pool.transcribe({ samples: clip.samples, sampleRate: 16000 }, english)));
      for (const r of again) expect(r.text).to.include('young man');
    } finally {
      pool.close();
    }
  });

  it('replaces a decoder whose process died', async () => {
    const [pid] = ours();
    process.kill(pid!, 'SIGKILL');
    await sleep(100);
    const clip = librivoxClip('0880');
    const results = await Promise.all([0, 1, 2].map(() => recognizer.transcribe({ samples: clip.samples, sampleRate: 16000 }, english)));
    for (const r of results) expect(r.text).to.include('young man');
    expect(ours()).to.have.length(3);
  });

  it('create() says to run npm run setup when python3 is missing', async () => {
    const error = await PocketsphinxSpeechRecognizer.create({ python: '/nonexistent/python3' }).then(
      () => null,
      (err: unknown) => err,
    );
    expect((error as Error)?.message).to.match(/npm run setup/);
  });
});
