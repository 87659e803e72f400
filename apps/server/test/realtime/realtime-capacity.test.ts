import { expect } from 'chai';
import { librivoxSentences } from '../helpers/librivox.js';
import { openSession, RealtimeClient, sleep, takeViolations, type ServerEvent } from '../helpers/realtime-client.js';
import { serverVadVoiceSession, speakAtRealTimePace } from '../helpers/spoken-audio.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';

interface Turn {
  transcript: string;
  status: string;
  audioDeltas: number;
}

/**
 * A caller taking turns: says a sentence (and 800 ms of silence), waits for the spoken reply to
 * end, says the next one. Nothing barges in, so on any machine every turn must get its reply.
 */
async function takeTurns(client: RealtimeClient, sentences: Int16Array[]): Promise<Turn[]> {
  const turns: Turn[] = [];
  for (const sentence of sentences) {
    await speakAtRealTimePace(client, Int16Array.from([...new Int16Array(4800), ...sentence, ...new Int16Array(12800)]));
    const { event: transcript } = await client.until('conversation.item.input_audio_transcription.completed', 120_000);
    const { event: done, skipped } = await client.until('response.done', 120_000);
    const errors = skipped.filter((e) => e.type === 'error');
    expect(errors, JSON.stringify(errors)).to.deep.equal([]);
    turns.push({
      transcript: transcript.transcript as string,
      status: (done.response as { status: string }).status,
      audioDeltas: skipped.filter((e: ServerEvent) => e.type === 'response.output_audio.delta').length,
    });
  }
  return turns;
}

/**
 * Admission by capacity on the real server with the real engines (Silero, pocketsphinx, Flite):
 * speaking sessions fill this process's capacity, the excess is refused cleanly (close 1013 with a
 * reason, before anything is sent), the admitted callers keep getting every answer, and a slot
 * frees when a caller leaves. The capacity is fixed here (3 sessions) and the load guards are
 * out of reach, so what is tested is the admission path, whatever else loads the CI machine; the
 * CPU arithmetic and the guards are unit-tested (core) and measured (the ServerLoadMonitor test).
 */
describe('realtime e2e: admission by capacity (speaking sessions past what the server can serve)', function () {
  this.timeout(600_000);
  afterEach(() => expect(takeViolations()).to.deep.equal([]));
  let s: RealtimeTestServer;
  before(async () => {
    s = await startRealtimeServer({
      env: {
        SVC_REALTIME_CAPACITY: '3',
        SVC_ASR_WARM_DECODERS: '3',
        SVC_REALTIME_WARM_UP: 'blocking',
        SVC_REALTIME_MAX_RECOGNIZER_BACKLOG_MS: '600000',
        SVC_REALTIME_MAX_EVENT_LOOP_LAG_MS: '600000',
        SVC_REALTIME_TRANSCRIPT_DEADLINE_MS: '120000',
        // Spoken replies leave as fast as they are made: admission is under test, not their pace.
        SVC_REALTIME_AUDIO_LEAD_MS: '60000',
      },
    });
  });
  after(async () => s?.close());

  it('the excess is refused with 1013 and the reason, nothing sent; the admitted ones keep getting answers; a slot frees when one leaves', async () => {
    const sentences = librivoxSentences().map((c) => c.samples);
    const admitted = await Promise.all([0, 1, 2].map(() => openSession(s.wsUrl, s.apiKey, serverVadVoiceSession)));
    const talking = admitted.map(({ client }, i) => takeTurns(client, [sentences[i]!, sentences[(i + 3) % sentences.length]!]));
    talking.forEach((t) => t.catch(() => undefined));
    // Every admitted caller is speaking before anyone else knocks.
    for (const { client } of admitted) {
      while (!client.events.some((e) => e.type === 'input_audio_buffer.speech_started')) await sleep(50);
    }
    for (let k = 0; k < 2; k++) {
      const extra = RealtimeClient.connect(s.wsUrl, { apiKey: s.apiKey });
      extra.send({ type: 'session.update', session: { type: 'realtime', model: 'svc-realtime', ...serverVadVoiceSession } });
      const closed = await extra.closed;
      expect(closed).to.deep.equal({ code: 1013, reason: 'server at capacity (3 of 3 sessions open); retry later' });
      expect(extra.events, 'nothing is sent to a refused caller').to.deep.equal([]);
    }
    const results = await Promise.all(talking);
    for (const turns of results) {
      for (const turn of turns) {
        expect(turn.status).to.equal('completed');
        expect(turn.audioDeltas, 'a spoken reply').to.be.greaterThan(0);
        expect(turn.transcript.split(' ').length, turn.transcript).to.be.greaterThan(2);
      }
    }
    console.log(
      `      admitted callers heard: ${results
        .flat()
        .map((t) => `"${t.transcript}"`)
        .join(', ')}`,
    );
    // One caller leaves: the next one is admitted.
    await admitted[0]!.client.close();
    // its slot is freed when the server has seen the close
    while (s.activeSessions() >= 3) await sleep(10);
    const next = await openSession(s.wsUrl, s.apiKey, serverVadVoiceSession);
    expect(next.created.type).to.equal('session.created');
    const metrics = await (await fetch(`${s.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${s.apiKey}` } })).text();
    expect(metrics).to.match(/svc_realtime_sessions_refused_total\{reason="over_capacity"\} 2\b/);
    expect(metrics).to.match(/svc_realtime_capacity_sessions 3\b/);
    // Silero's batching is visible: every frame the callers' audio made was scored, in fewer runs when they spoke at once.
    const total = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(metrics)?.[1] ?? 0);
    expect(total('svc_vad_frames_total'), 'frames scored').to.be.greaterThan(0);
    expect(total('svc_vad_runs_total'), 'model runs').to.be.within(1, total('svc_vad_frames_total'));
    for (const { client } of [next, ...admitted.slice(1)]) await client.close();
  });
});
