// @test-tier light: speaks turns at real-time pace and mostly waits
import { expect } from 'chai';
import { childProcesses } from '../helpers/http.js';
import { librivoxSentences } from '../helpers/librivox.js';
import { openSession, sleep, takeViolations, type RealtimeClient, type ServerEvent } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';
import { serverVadVoiceSession, speakAtRealTimePace } from '../helpers/spoken-audio.js';

/** Long enough for a turn on a loaded CI machine (a stopped decoder never answers, whatever the deadline). */
const DEADLINE_MS = 5000;

/** Silence, the sentence, silence: one server-VAD turn. */
function speak(client: RealtimeClient, sentence: Int16Array): Promise<void> {
  return speakAtRealTimePace(client, Int16Array.from([...new Int16Array(4800), ...sentence, ...new Int16Array(16000)]));
}

/** This process's pocketsphinx decoders (the in-process test server's helpers). */
const decoders = () => childProcesses('svc-decoder');

/** The events of the turn committed as `itemId`, up to its response.done (waits for it). */
async function turnOutcome(client: RealtimeClient): Promise<{ itemId: string; events: ServerEvent[]; done: ServerEvent }> {
  const { event: stopped } = await client.until('input_audio_buffer.speech_stopped', 60_000);
  const { event: done, skipped } = await client.until('response.done', 60_000);
  // An error may come just after the response ends: a moment for it.
  await sleep(300);
  const after = client.events.slice(client.events.indexOf(done) + 1);
  return { itemId: stopped.item_id as string, events: [...skipped, done, ...after], done };
}

/**
 * A turn is never dropped silently, on the real server with the real engines (Silero VAD, warm
 * pocketsphinx decoders, Flite): when the recognizer cannot give the words in time (its decoder
 * process stopped, as a starved one is) or fails (its process killed), the caller gets an `error`
 * naming the item and why, and no reply to words nobody heard; the next turn is answered as usual.
 */
describe('realtime e2e: no silently dropped turn (stalled or failed recognizer)', function () {
  this.timeout(300_000);
  afterEach(() => expect(takeViolations()).to.deep.equal([]));
  let s: RealtimeTestServer;
  const stopped: number[] = [];
  before(async () => {
    s = await startRealtimeServer({
      env: {
        SVC_ASR_ENGINE: 'pocketsphinx',
        SVC_ASR_DECODERS: '1',
        SVC_ASR_WARM_DECODERS: '1',
        SVC_REALTIME_WARM_UP: 'blocking',
        SVC_REALTIME_TRANSCRIPT_DEADLINE_MS: String(DEADLINE_MS),
        // The answered turn's reply leaves as fast as it is made: its pace is not under test here.
        SVC_REALTIME_AUDIO_LEAD_MS: '60000',
      },
    });
  });
  afterEach(() => {
    for (const pid of stopped.splice(0)) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        /* already gone */
      }
    }
  });
  after(async () => s?.close());

  it('a recognizer that cannot keep up (its decoder stopped): error server_overloaded after the deadline, no reply; the next turn is answered', async () => {
    const [first, second] = librivoxSentences();
    const { client } = await openSession(s.wsUrl, s.apiKey, serverVadVoiceSession);
    const pids = decoders();
    expect(pids, 'the warm decoder').to.have.length.greaterThan(0);
    for (const pid of pids) {
      process.kill(pid, 'SIGSTOP');
      stopped.push(pid);
    }
    const spoken = speak(client, first!.samples);
    const turn = await turnOutcome(client);
    await spoken;
    const errors = turn.events.filter((e) => e.type === 'error');
    expect(errors, JSON.stringify(turn.events.map((e) => e.type))).to.have.length(1);
    expect(errors[0]!.error).to.deep.include({ type: 'server_error', code: 'server_overloaded' });
    expect(errors[0]!.error.message).to.include(turn.itemId).and.to.include(`${DEADLINE_MS} ms`);
    expect(turn.done.response).to.deep.include({ status: 'cancelled', output: [] });
    expect(turn.events.map((e) => e.type)).to.not.include.members([
      'response.output_audio.delta',
      'conversation.item.input_audio_transcription.completed',
    ]);
    for (const pid of stopped.splice(0)) process.kill(pid, 'SIGCONT');
    // The decoder is free again (the late turn's utterance dropped, or the decoder replaced): the next turn gets its reply.
    const next = speak(client, second!.samples);
    const answered = await client.until('response.done', 60_000);
    const transcript = answered.skipped.find((e) => e.type === 'conversation.item.input_audio_transcription.completed') ?? {
      transcript: '',
    };
    await next;
    expect(answered.event.response.status).to.equal('completed');
    expect(answered.skipped.filter((e) => e.type === 'response.output_audio.delta')).to.not.be.empty;
    expect(answered.skipped.filter((e) => e.type === 'error').map((e) => e.error)).to.deep.equal([]);
    expect((transcript.transcript as string).split(' ').length, transcript.transcript as string).to.be.greaterThan(2);
    await client.close();
  });

  it('a recognizer that fails (its decoder process killed mid-turn): error transcription_failed naming the item, no reply', async () => {
    const [, , third] = librivoxSentences();
    const { client } = await openSession(s.wsUrl, s.apiKey, serverVadVoiceSession);
    const spoken = speak(client, third!.samples);
    await client.until('input_audio_buffer.speech_started', 30_000);
    // The turn holds the decoder from its start: killing it now fails that turn's recognition.
    await sleep(500);
    for (const pid of decoders()) process.kill(pid, 'SIGKILL');
    const turn = await turnOutcome(client);
    await spoken;
    const errors = turn.events.filter((e) => e.type === 'error');
    expect(errors, JSON.stringify(turn.events.map((e) => e.type))).to.have.length(1);
    expect(errors[0]!.error).to.deep.include({ type: 'server_error', code: 'transcription_failed' });
    expect(errors[0]!.error.message).to.include(turn.itemId).and.to.include('pocketsphinx');
    expect(turn.done.response).to.deep.include({ status: 'cancelled', output: [] });
    expect(turn.events.map((e) => e.type)).to.not.include('response.output_audio.delta');
    await client.close();
  });
});
