import { expect } from 'chai';
import { InterruptionJudge } from '../../src/realtime/engine/interruption-judge.js';
import { backchannelsOf, substantiveWords } from '../../src/realtime/engine/backchannels.js';
import type { RealtimeServerEvent } from '../../src/realtime/index.js';
import type { Logger } from '../../src/shared/logger.js';
import { EnergyVad, FakeReplySpeaker, FakeStreamingRecognizer, flush, pcmBase64, ScriptedLanguageModel } from '../fakes/index.js';
import { createHarness } from './support/session-harness.js';

/** Records what the engine logs (the rule that decided a barge-in is in there). */
function recordingLogger(lines: { msg: string; obj: Record<string, unknown> }[]): Logger {
  const logger: Logger = {
    debug: (obj, msg = '') => void lines.push({ msg, obj }),
    info: (obj, msg = '') => void lines.push({ msg, obj }),
    warn: (obj, msg = '') => void lines.push({ msg, obj }),
    error: (obj, msg = '') => void lines.push({ msg, obj }),
    child: () => logger,
  };
  return logger;
}

const deltaMs = (events: RealtimeServerEvent[]) =>
  events
    .filter((e) => e.type === 'response.output_audio.delta')
    .reduce((n, e) => n + Buffer.from(e.delta as string, 'base64').length / 48, 0);

/** A 4 s spoken reply under server VAD (silence 200 ms), with the given turn_detection extension fields. */
async function replying(turnDetection: Record<string, unknown> = {}, recognizer = new FakeStreamingRecognizer('hi')) {
  const logs: { msg: string; obj: Record<string, unknown> }[] = [];
  const h = createHarness({
    lm: new ScriptedLanguageModel([{ type: 'text', delta: 'Hello there. How are you?' }]),
    audio: { replySpeaker: new FakeReplySpeaker(4000), voiceActivityDetector: new EnergyVad(), speechRecognizer: recognizer },
    deps: { logger: recordingLogger(logs) },
  });
  await h.send({
    type: 'session.update',
    session: {
      model: 'svc-realtime',
      output_modalities: ['audio'],
      audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 200, ...turnDetection } } },
    },
  });
  await h.send({ type: 'response.create' });
  h.clock.advance(300);
  await flush();
  return { h, logs };
}

/** Appends `ms` of 24 kHz audio in 20 ms chunks as real time passes (loud: speech to the EnergyVad). */
async function speak(h: Awaited<ReturnType<typeof replying>>['h'], ms: number, loud: boolean) {
  for (let t = 0; t < ms; t += 20) {
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(20, 24000, loud ? 5000 : 0) });
    h.clock.advance(20);
    await flush();
  }
}

/** Lets `ms` of playback pass, 100 ms at a time (the pacing's timers fire one after another). */
async function play(h: Awaited<ReturnType<typeof replying>>['h'], ms: number) {
  for (let t = 0; t < ms; t += 100) {
    h.clock.advance(100);
    await flush();
  }
}

const decided = (logs: { msg: string; obj: Record<string, unknown> }[]) => logs.filter((l) => l.msg.startsWith('barge-in: '));

describe('barge-in: pause, judge, then cancel or resume', () => {
  it('a backchannel (400 ms) pauses the reply at speech_started and resumes it: no delta while paused, the reply completes whole, no user turn', async () => {
    const { h, logs } = await replying({ interruption_events: true });
    await speak(h, 400, true);
    const types = h.out.types();
    const started = types.indexOf('input_audio_buffer.speech_started');
    expect(started).to.be.greaterThan(0);
    expect(types[started + 1]).to.equal('response.output_audio.paused');
    // Paused: not one delta after speech_started while the speech is judged.
    const sentAtPause = deltaMs(h.out.events);
    await speak(h, 300, false);
    expect(types.slice(started).filter((t) => t === 'response.output_audio.delta')).to.have.length(0);
    const after = h.out.types();
    const stopped = after.indexOf('input_audio_buffer.speech_stopped');
    expect(stopped).to.be.greaterThan(started);
    expect(after.slice(started, stopped + 1)).not.to.include('response.output_audio.delta');
    expect(after[stopped + 1]).to.equal('response.output_audio.resumed');
    expect(h.out.last('response.output_audio.resumed').paused_ms).to.be.within(400, 800);
    expect(after).not.to.include('input_audio_buffer.committed');
    expect(after).not.to.include('response.done');
    // Resumed from where it paused: the rest of the 4 s follows and the response completes whole.
    await play(h, 5000);
    expect(deltaMs(h.out.events)).to.equal(4000);
    expect(deltaMs(h.out.events)).to.be.greaterThan(sentAtPause);
    const done = h.out.last('response.done').response as { status: string; output: { content: { transcript: string }[] }[] };
    expect(done.status).to.equal('completed');
    expect(done.output[0]!.content[0]!.transcript).to.equal('Hello there. How are you?');
    expect(h.out.all('response.created')).to.have.length(1);
    expect(decided(logs).map((l) => [l.msg, l.obj.rule])).to.deep.equal([
      ['barge-in: reply paused while the speech is judged', undefined],
      ['barge-in: no interruption, reply resumed', 'short_speech'],
    ]);
  });

  it('without interruption_events no paused/resumed event is sent (the WebSocket never gets output_audio_buffer.*)', async () => {
    const { h } = await replying();
    await speak(h, 400, true);
    await speak(h, 300, false);
    await play(h, 5000);
    expect(
      h.out
        .types()
        .filter(
          (t) => t.startsWith('response.output_audio.p') || t.startsWith('response.output_audio.r') || t.startsWith('output_audio_buffer.'),
        ),
    ).to.deep.equal([]);
    expect(h.out.last('response.done').response).to.deep.include({ status: 'completed' });
    expect(deltaMs(h.out.events)).to.equal(4000);
  });

  it('speech that lasts min_interruption_duration cancels the reply then (not at speech_started), truncated to what was heard, and becomes a turn', async () => {
    const { h, logs } = await replying({ min_interruption_duration: 0.6 });
    await speak(h, 400, true);
    expect(h.out.types()).not.to.include('response.done');
    await speak(h, 400, true);
    const types = h.out.types();
    expect(types).to.include('response.done');
    expect(h.out.all('response.done')[0]!.response).to.deep.include({ status: 'cancelled' });
    const rule = decided(logs).find((l) => l.msg === 'barge-in: interruption, reply cancelled')!;
    expect(rule.obj.rule).to.equal('duration');
    expect(rule.obj.voicedMs).to.be.within(600, 660);
    // The item keeps what was heard: the paused reply stopped at the listener's position.
    const item = (h.out.all('response.done')[0]!.response as { output: { content: { transcript: string }[] }[] }).output[0]!;
    expect(item.content[0]!.transcript.length).to.be.lessThan('Hello there. How are you?'.length);
    await speak(h, 300, false);
    expect(h.out.types()).to.include('input_audio_buffer.committed');
    expect(h.out.all('response.created')).to.have.length(2);
  });

  it('a partial with min_interruption_words real words cancels before the duration does; backchannel words do not', async () => {
    const recognizer = new FakeStreamingRecognizer('stop right there please');
    recognizer.partialText = 'stop right there please';
    const { h, logs } = await replying({ min_interruption_duration: 3, min_interruption_words: 2 }, recognizer);
    await speak(h, 800, true);
    expect(h.out.all('response.done')[0]!.response).to.deep.include({ status: 'cancelled' });
    const rule = decided(logs).find((l) => l.msg === 'barge-in: interruption, reply cancelled')!;
    expect(rule.obj.rule).to.equal('words');
    // Two believable words need 0.67 s of voiced speech at three words a second.
    expect(rule.obj.voicedMs).to.be.within(660, 760);

    const yeah = new FakeStreamingRecognizer('yeah right okay');
    yeah.partialText = 'yeah right okay';
    const second = await replying({ min_interruption_duration: 3, min_interruption_words: 2 }, yeah);
    await speak(second.h, 1000, true);
    await speak(second.h, 300, false);
    expect(second.h.out.types()).not.to.include('response.done');
    expect(decided(second.logs).at(-1)!.obj.rule).to.equal('short_speech');
  });

  it('resume_false_interruption false: speech that ends short still cancels (rule resume_disabled)', async () => {
    const { h, logs } = await replying({ resume_false_interruption: false });
    await speak(h, 300, true);
    expect(h.out.types()).not.to.include('response.done');
    await speak(h, 300, false);
    expect(h.out.all('response.done')[0]!.response).to.deep.include({ status: 'cancelled' });
    expect(decided(logs).at(-1)!.obj.rule).to.equal('resume_disabled');
    expect(h.out.types()).to.include('input_audio_buffer.committed');
  });

  it('min_interruption_duration 0 is the modelled API: cancelled at speech_started, no pause', async () => {
    const { h } = await replying({ min_interruption_duration: 0, interruption_events: true });
    await speak(h, 200, true);
    const types = h.out.types();
    const started = types.indexOf('input_audio_buffer.speech_started');
    expect(types.indexOf('response.done')).to.be.greaterThan(started);
    expect(types).not.to.include('response.output_audio.paused');
  });

  it('echoes the extension fields with their defaults and rejects out-of-range values', async () => {
    const h = createHarness();
    await h.send({ type: 'session.update', session: { model: 'svc-realtime' } });
    expect((h.out.events[0]!.session as any).audio.input.turn_detection).to.deep.include({
      min_interruption_duration: 0.8,
      min_interruption_words: 2,
      resume_false_interruption: true,
      interruption_events: false,
    });
    await h.send({
      type: 'session.update',
      session: { audio: { input: { turn_detection: { type: 'server_vad', min_interruption_words: 1.5 } } } },
    });
    expect(h.out.last('error').error).to.deep.include({ param: 'session.audio.input.turn_detection.min_interruption_words' });
  });
});

describe('interruption judge', () => {
  const judge = new InterruptionJudge({ min_interruption_duration: 0.8, min_interruption_words: 2, resume_false_interruption: true }, 'en');

  it("does not believe what pocketsphinx makes of hums: 'on m h and m', 'but but', 'the militia ma'am', 'and and may' in 0.7 s", () => {
    for (const partial of ['on m h and m', 'but but', "the militia ma'am", 'and and may', 'mm hmm', 'yeah yeah right', 'uh huh okay']) {
      const verdict = judge.atEnd({ voicedMs: 700, partial });
      expect(verdict, partial).to.deep.include({ interrupt: false, rule: 'short_speech' });
    }
  });

  it('believes words the speech can carry, and the duration whatever was heard', () => {
    expect(judge.during({ voicedMs: 700, partial: 'no stop that' })).to.deep.include({ decided: true, interrupt: true, rule: 'words' });
    expect(judge.during({ voicedMs: 500, partial: 'no stop that' })).to.deep.equal({ decided: false });
    expect(judge.during({ voicedMs: 800, partial: '' })).to.deep.include({ decided: true, interrupt: true, rule: 'duration' });
  });

  it('has a backchannel list per language and every list for an unset one', () => {
    expect(substantiveWords('oui d’accord voilà', backchannelsOf('fr'))).to.deep.equal([]);
    expect(substantiveWords('ja genau', backchannelsOf('de-DE'))).to.deep.equal([]);
    expect(substantiveWords('ja genau', backchannelsOf('en'))).to.deep.equal(['ja', 'genau']);
    expect(substantiveWords('Oui, wait!', backchannelsOf(null))).to.deep.equal(['wait']);
    // What listeners say besides the hums: none of it asks for the turn; a request still counts.
    expect(substantiveWords('oh gotcha, of course, absolutely', backchannelsOf('en'))).to.deep.equal([]);
    expect(substantiveWords('ohh mhmm', backchannelsOf('en'))).to.deep.equal([]);
    expect(substantiveWords('of course not stop', backchannelsOf('en'))).to.deep.equal(['not', 'stop']);
  });
});
