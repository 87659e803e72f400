import { expect } from 'chai';
import {
  judgeTurn,
  pitchEnding,
  SEMANTIC_PAUSE_MS,
  SemanticTurnEnd,
  UNCLEAR_WAIT_MS,
  UNFINISHED_WAIT_MS,
  defaultTurnDetection,
  type TurnDetection,
} from '../../src/realtime/index.js';
import { EnergyVad, FakeStreamingRecognizer, flush, pcmBase64 } from '../fakes/index.js';
import { startTextSession } from './support/session-harness.js';

/**
 * A voice-like sound (a fundamental and two harmonics) whose pitch glides from `hz` to `end.toHz`
 * over its last `end.glideMs`; `offset` lifts it above the fake detector's level at every sample.
 */
function voiced(
  ms: number,
  rate: number,
  hz: number,
  end: { toHz: number; glideMs: number } = { toHz: hz, glideMs: 0 },
  offset = 0,
): Int16Array {
  const n = Math.round((ms / 1000) * rate);
  const glideStart = n - Math.round((end.glideMs / 1000) * rate);
  const out = new Int16Array(n);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const f = i < glideStart ? hz : hz + ((end.toHz - hz) * (i - glideStart)) / Math.max(1, n - glideStart);
    phase += (2 * Math.PI * f) / rate;
    out[i] = Math.round(offset + 6000 * (Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.3 * Math.sin(3 * phase)));
  }
  return out;
}
const base64 = (pcm: Int16Array) => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');
const semantic = (overrides: Partial<TurnDetection> = {}): TurnDetection => ({ ...defaultTurnDetection('semantic_vad'), ...overrides });

describe('semantic_vad: the words and the voice decide when a turn ends', () => {
  it('judges a turn from its partial transcript', () => {
    for (const t of [
      'i would like a coffee and',
      'put it on the',
      'um',
      'my number is four five',
      'it costs twenty',
      'because',
      'and then we',
      'the answer is',
    ]) {
      expect(judgeTurn(t), t).to.equal('unfinished');
    }
    for (const t of [
      'what time is it',
      'i would like a coffee',
      'turn the lights off',
      'nice to meet you',
      "i'll take those",
      'what is this',
    ])
      expect(judgeTurn(t), t).to.equal('finished');
    for (const t of ['', 'hello', 'yes please']) expect(judgeTurn(t), t).to.equal('unclear');
  });

  it('hears a falling, a level and a rising end of a phrase, relative to the speaker; nothing in silence', () => {
    const rate = 16000;
    expect(pitchEnding(voiced(1500, rate, 120, { toHz: 85, glideMs: 350 }), rate)).to.equal('falling');
    expect(pitchEnding(voiced(1500, rate, 120), rate)).to.equal('level');
    // A dip (about a tenth, as a reader's clause that goes on dips) is no fall.
    expect(pitchEnding(voiced(1500, rate, 120, { toHz: 100, glideMs: 350 }), rate)).to.equal('level');
    expect(pitchEnding(voiced(1500, rate, 120, { toHz: 150, glideMs: 350 }), rate)).to.equal('rising');
    // A lower voice, the same shape: relative, not absolute.
    expect(pitchEnding(voiced(1500, rate, 90, { toHz: 64, glideMs: 350 }), rate)).to.equal('falling');
    expect(pitchEnding(new Int16Array(rate), rate)).to.equal('unknown');
    expect(pitchEnding(voiced(80, rate, 120), rate)).to.equal('unknown');
  });

  describe('the rule', () => {
    const rule = new SemanticTurnEnd();
    it('reports a pause to judge after a short silence (server_vad keeps silence_duration_ms)', () => {
      expect(rule.detectorSilenceMs(semantic())).to.equal(SEMANTIC_PAUSE_MS);
      expect(rule.detectorSilenceMs(semantic({ silence_duration_ms: 120 }))).to.equal(120);
      expect(rule.detectorSilenceMs(defaultTurnDetection('server_vad'))).to.equal(500);
    });

    it('ends finished words said with a falling voice at once, and waits after anything else', () => {
      const td = semantic();
      expect(rule.extraWaitMs(td, 'what time is it', 'falling')).to.equal(0);
      // A phrase that goes on (level or rising) waits past a pause between clauses.
      for (const pitch of ['level', 'rising', 'unknown'] as const) {
        expect(rule.extraWaitMs(td, 'what time is it', pitch), pitch).to.equal(500 + UNCLEAR_WAIT_MS - SEMANTIC_PAUSE_MS);
      }
      expect(rule.extraWaitMs(td, 'put it on the', 'falling')).to.equal(500 + UNFINISHED_WAIT_MS - SEMANTIC_PAUSE_MS);
      expect(rule.extraWaitMs(td, 'hello', 'falling')).to.equal(500 + UNCLEAR_WAIT_MS - SEMANTIC_PAUSE_MS);
    });

    it('gives eagerness no effect (the interface: accepted, no effect) unless the operator opts in', () => {
      for (const eagerness of ['low', 'high'] as const) {
        const td = semantic({ eagerness });
        expect(rule.detectorSilenceMs(td)).to.equal(SEMANTIC_PAUSE_MS);
        expect(rule.extraWaitMs(td, 'put it on the', 'level')).to.equal(rule.extraWaitMs(semantic(), 'put it on the', 'level'));
      }
      const eager = new SemanticTurnEnd(true);
      // high halves the waits, not the short pause: shorter, it ended turns inside read sentences
      expect(eager.detectorSilenceMs(semantic({ eagerness: 'high' }))).to.equal(SEMANTIC_PAUSE_MS);
      expect(eager.detectorSilenceMs(semantic({ eagerness: 'low' }))).to.equal(SEMANTIC_PAUSE_MS * 2);
      expect(eager.extraWaitMs(semantic({ eagerness: 'high' }), 'put it on the', 'level')).to.equal(
        (500 + UNFINISHED_WAIT_MS) / 2 - SEMANTIC_PAUSE_MS,
      );
      expect(eager.extraWaitMs(semantic({ eagerness: 'auto' }), 'put it on the', 'level')).to.equal(
        500 + UNFINISHED_WAIT_MS - SEMANTIC_PAUSE_MS,
      );
    });
  });

  async function semanticSession(
    deps: { semanticEagerness?: boolean } = {},
    td: Record<string, unknown> = {},
    hangoverMs = 0,
    input: Record<string, unknown> = {},
  ) {
    const recognizer = new FakeStreamingRecognizer('i would like a coffee and a bagel');
    const vad = new EnergyVad(hangoverMs);
    const h = await startTextSession(
      { audio: { voiceActivityDetector: vad, speechRecognizer: recognizer }, deps },
      { audio: { input: { ...input, turn_detection: { type: 'semantic_vad', ...td } } } },
    );
    return { h, recognizer, vad };
  }
  const RATE = 24000;
  // EnergyVad hears speech only above 1000 at every sample: the phrases sit on an offset (the pitch ignores it).
  const fallingPhrase = () => base64(voiced(1200, RATE, 120, { toHz: 82, glideMs: 300 }, 14000));
  const levelPhrase = () => base64(voiced(1200, RATE, 120, undefined, 14000));

  it('a finished sentence said with a falling voice ends at the short pause, before silence_duration_ms', async () => {
    const { h, recognizer, vad } = await semanticSession();
    expect(vad.opened[0]!.silenceDurationMs).to.equal(SEMANTIC_PAUSE_MS);
    recognizer.partialText = 'what time is it';
    await h.send({ type: 'input_audio_buffer.append', audio: fallingPhrase() });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(SEMANTIC_PAUSE_MS + 40, RATE, 0) });
    await flush();
    expect(h.out.types()).to.include('input_audio_buffer.speech_stopped');
    expect(h.out.types()).to.include('input_audio_buffer.committed');
  });

  describe('the pause judged where the voice went quiet (a detector that hears the soft end as speech)', () => {
    /** A phrase, then quiet the detector still counts as speech for 160 ms (its hangover), in 20 ms appends. */
    async function phraseWithSoftEnd(phrase: string, partial: string, unrecognizedSpeechMs = 0) {
      const { h, recognizer } = await semanticSession({}, {}, 160);
      recognizer.partialText = partial;
      Object.assign(recognizer, { unrecognizedSpeechMs });
      await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, RATE, 0) });
      await h.send({ type: 'input_audio_buffer.append', audio: phrase });
      for (let t = 0; t < SEMANTIC_PAUSE_MS + 120; t += 20)
        await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(20, RATE, 0) });
      await flush();
      return h;
    }
    const stopped = (h: Awaited<ReturnType<typeof phraseWithSoftEnd>>) =>
      h.out.events.find((e) => e.type === 'input_audio_buffer.speech_stopped') as { audio_end_ms: number } | undefined;

    it('finished words said with a falling voice end at the pause counted from the voice, not from the detector', async () => {
      const h = await phraseWithSoftEnd(fallingPhrase(), 'what time is it');
      // The phrase ends at 1,600 ms; the detector hears speech until 1,760 and would report its pause at 1,960.
      const event = stopped(h);
      expect(event, 'speech_stopped before the pause of the detector').not.to.equal(undefined);
      expect(event!.audio_end_ms).to.be.within(1590, 1620);
      expect(h.out.types()).to.include('input_audio_buffer.committed');
    });

    it('the committed turn keeps the audio the detector heard as speech after the voice went quiet', async () => {
      const { h, recognizer } = await semanticSession({}, {}, 160, { transcription: { model: 'svc-stt-3.1' } });
      recognizer.partialText = 'what time is it';
      await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, RATE, 0) });
      await h.send({ type: 'input_audio_buffer.append', audio: fallingPhrase() });
      for (let t = 0; t < SEMANTIC_PAUSE_MS + 120; t += 20)
        await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(20, RATE, 0) });
      await flush();
      const ended = stopped(h)!;
      expect(ended.audio_end_ms, 'ended where the voice went quiet').to.be.within(1590, 1620);
      const started = h.out.events.find((e) => e.type === 'input_audio_buffer.speech_started') as unknown as { audio_start_ms: number };
      const done = h.out.events.find((e) => e.type === 'conversation.item.input_audio_transcription.completed') as unknown as
        { usage: { seconds: number } } | undefined;
      expect(done, 'transcribed').not.to.equal(undefined);
      // From the detector's start to its end of speech (the phrase plus its 160 ms hangover), not to the voice's end.
      expect(done!.usage.seconds * 1000).to.be.within(1760 - started.audio_start_ms - 10, 1760 - started.audio_start_ms + 10);
    });

    it('speech the recognizer made no word of after unfinished words sets them aside there too: a long falling sentence ends at the voice', async () => {
      // "... in his power to do for [them]": the soft last word decoded as silence, or as spoken noise.
      const long = base64(voiced(2000, RATE, 120, { toHz: 82, glideMs: 300 }, 14000));
      const missed = await phraseWithSoftEnd(long, 'in his power to do for', 140);
      expect(stopped(missed), 'ended before the pause of the detector').not.to.equal(undefined);
      expect(stopped(missed)!.audio_end_ms).to.be.within(2390, 2420);
      // Only silence after "for" (a mid-sentence pause): the unfinished words wait.
      const paused = await phraseWithSoftEnd(long, 'in his power to do for', 0);
      expect(stopped(paused)).to.equal(undefined);
      // Finished words stay finished with a soft tail after them.
      const tail = await phraseWithSoftEnd(fallingPhrase(), 'what time is it', 140);
      expect(stopped(tail)!.audio_end_ms).to.be.within(1590, 1620);
    });

    it('a level voice, or unfinished words, wait for the pause of the detector and the wait it sets', async () => {
      for (const [phrase, partial] of [
        [levelPhrase(), 'what time is it'],
        [fallingPhrase(), 'i would like the'],
      ] as const) {
        const h = await phraseWithSoftEnd(phrase, partial);
        expect(stopped(h), partial).to.equal(undefined);
      }
    });

    it('after a turn ended where the voice went quiet, the next speech is a new turn', async () => {
      const h = await phraseWithSoftEnd(fallingPhrase(), 'what time is it');
      expect(h.out.types().filter((t) => t === 'input_audio_buffer.speech_started')).to.have.length(1);
      await h.send({ type: 'input_audio_buffer.append', audio: fallingPhrase() });
      await flush();
      expect(h.out.types().filter((t) => t === 'input_audio_buffer.speech_started')).to.have.length(2);
    });
  });

  /**
   * "... in his power to do for [them]", said with a falling voice, then the short pause: the words
   * end on "for", the creaky "them" is heard as speech decoded as no word (`unrecognizedSpeechMs`),
   * and the recognizer may still be `behindMs` behind.
   */
  async function pausedAfterFor(recognizer: { behindMs: number; unrecognizedSpeechMs: number }) {
    const session = await semanticSession();
    session.recognizer.partialText = 'in his power to do for';
    Object.assign(session.recognizer, recognizer);
    const longFalling = base64(voiced(2000, RATE, 120, { toHz: 82, glideMs: 300 }, 14000));
    await session.h.send({ type: 'input_audio_buffer.append', audio: longFalling });
    await session.h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(SEMANTIC_PAUSE_MS + 40, RATE, 0) });
    await flush();
    return session;
  }

  it('speech the recognizer made no word of after its last word sets the words aside: a long sentence said with a falling voice ends at the short pause', async () => {
    const { h } = await pausedAfterFor({ behindMs: 0, unrecognizedSpeechMs: 140 });
    expect(h.out.types()).to.include('input_audio_buffer.committed');
    // Only silence after "for" (a pause mid-sentence): the unfinished words keep the turn open.
    const paused = await pausedAfterFor({ behindMs: 0, unrecognizedSpeechMs: 0 });
    paused.h.clock.advance(1000);
    await flush();
    expect(paused.h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
  });

  it('a recognizer behind at the pause: the pause is judged again once it has decoded that far, and its late cue ends the turn', async () => {
    // At the pause the recognizer is a piece behind: it has not marked the creaky "them" yet (an
    // unfinished phrase: the turn would wait 1.8 s more).
    const late = await pausedAfterFor({ behindMs: 100, unrecognizedSpeechMs: 0 });
    expect(late.h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
    // It catches up and hears speech after "for" that it made no word of: judged again, the turn ends.
    Object.assign(late.recognizer, { behindMs: 0, unrecognizedSpeechMs: 180 });
    await late.h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(100, RATE, 0) });
    await flush();
    expect(late.h.out.types()).to.include('input_audio_buffer.committed');
    // Caught up with only silence after "for" (a mid-sentence pause): judged again, still unfinished.
    const paused = await pausedAfterFor({ behindMs: 100, unrecognizedSpeechMs: 0 });
    paused.recognizer.behindMs = 0;
    await paused.h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, RATE, 0) });
    await flush();
    expect(paused.h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
  });

  it('speech after the last word reported while the recognizer decodes the silence after the pause: judged again, the turn ends', async () => {
    // Not behind, but the soft "them" is reported only once some silence after it is decoded.
    const soon = await pausedAfterFor({ behindMs: 0, unrecognizedSpeechMs: 70 });
    expect(soon.h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
    soon.recognizer.unrecognizedSpeechMs = 250;
    await soon.h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(100, RATE, 0) });
    await flush();
    expect(soon.h.out.types()).to.include('input_audio_buffer.committed');
    // Reported only after 300 ms more silence: the pause is no longer judged again, the wait stands.
    const late = await pausedAfterFor({ behindMs: 0, unrecognizedSpeechMs: 70 });
    await late.h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(320, RATE, 0) });
    await flush();
    late.recognizer.unrecognizedSpeechMs = 250;
    await late.h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(100, RATE, 0) });
    await flush();
    expect(late.h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
  });

  it('a mid-sentence pause of 600 ms after finished-looking words said with a level voice does not end the turn', async () => {
    const { h, recognizer } = await semanticSession();
    recognizer.partialText = 'had he married a more amiable woman';
    await h.send({ type: 'input_audio_buffer.append', audio: levelPhrase() });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(SEMANTIC_PAUSE_MS + 40, RATE, 0) });
    h.clock.advance(600 - SEMANTIC_PAUSE_MS);
    await flush();
    expect(h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
    recognizer.partialText = 'had he married a more amiable woman he might have been made still more respectable';
    await h.send({ type: 'input_audio_buffer.append', audio: fallingPhrase() });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(SEMANTIC_PAUSE_MS + 40, RATE, 0) });
    await flush();
    const types = h.out.types();
    expect(types.filter((t) => t === 'input_audio_buffer.speech_started')).to.have.length(1);
    expect(types.filter((t) => t === 'input_audio_buffer.speech_stopped')).to.have.length(1);
    expect(recognizer.streams).to.have.length(1);
  });

  it('a pause after an unfinished phrase does not end the turn; speech resuming continues it as one turn', async () => {
    const { h, recognizer } = await semanticSession();
    recognizer.partialText = 'i would like a coffee and';
    await h.send({ type: 'input_audio_buffer.append', audio: fallingPhrase() });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, RATE, 0) });
    h.clock.advance(1000);
    await flush();
    expect(h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
    recognizer.partialText = 'i would like a coffee and a bagel';
    await h.send({ type: 'input_audio_buffer.append', audio: fallingPhrase() });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, RATE, 0) });
    await flush();
    const types = h.out.types();
    expect(types.filter((t) => t === 'input_audio_buffer.speech_started')).to.have.length(1);
    expect(types).to.include('input_audio_buffer.speech_stopped');
    expect(recognizer.streams).to.have.length(1);
  });

  it('an unfinished phrase followed by a long silence ends after the semantic wait', async () => {
    const { h, recognizer } = await semanticSession();
    recognizer.partialText = 'put it on the';
    await h.send({ type: 'input_audio_buffer.append', audio: fallingPhrase() });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, RATE, 0) });
    const waitMs = 500 + UNFINISHED_WAIT_MS - SEMANTIC_PAUSE_MS;
    h.clock.advance(waitMs - 10);
    await flush();
    expect(h.out.types()).not.to.include('input_audio_buffer.speech_stopped');
    h.clock.advance(20);
    await flush();
    expect(h.out.types()).to.include('input_audio_buffer.speech_stopped');
    expect(h.out.types()).to.include('input_audio_buffer.committed');
  });

  it('eagerness changes nothing by default; with the operator opt-in low reports later, high no sooner than the short pause', async () => {
    const plain = await semanticSession({}, { eagerness: 'low' });
    expect(plain.vad.opened[0]!.silenceDurationMs).to.equal(SEMANTIC_PAUSE_MS);
    const patient = await semanticSession({ semanticEagerness: true }, { eagerness: 'low' });
    expect(patient.vad.opened[0]!.silenceDurationMs).to.equal(SEMANTIC_PAUSE_MS * 2);
    const eager = await semanticSession({ semanticEagerness: true }, { eagerness: 'high' });
    expect(eager.vad.opened[0]!.silenceDurationMs).to.equal(SEMANTIC_PAUSE_MS);
  });

  it('every detected speech restarts the 5-minute idle timer (Clock port)', async () => {
    const { h } = await semanticSession();
    h.clock.advance(4 * 60_000);
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(500, 24000, 5000) });
    h.clock.advance(4 * 60_000);
    await flush();
    expect(h.out.types()).not.to.include('session.idle_timeout');
    expect(h.out.closed).to.equal(null);
    h.clock.advance(60_000 + 1000);
    await flush();
    expect(h.out.types()).to.include('session.idle_timeout');
  });
});
