// @test-tier paced: speaks at real-time pace and waits on pauses; its replies are begun at the pause only when the recognizer keeps up, which the first group's CPU-bound files beside it did not always let it do on a loaded machine
import { expect } from 'chai';
import { openSession, sleep, takeViolations, type RealtimeClient, type ServerEvent } from '../helpers/realtime-client.js';
import { startRealtimeServer } from '../helpers/realtime-server.js';
import { RATE, recording } from '../helpers/recorded-speech.js';
import { speakAtRealTimePace } from '../helpers/spoken-audio.js';
import { requireRecognizer } from '../helpers/pocketsphinx.js';
import { speculationCounts } from '../helpers/speculation-metrics.js';

/** Human speech (pocketsphinx-testdata): a short command and a reader's sentence. */
const SENTENCES = ['goforward.raw', 'librivox/sense_and_sensibility_01_austen_64kb-0880.wav'];
/** Silence after each sentence: longer than semantic_vad's longest wait. */
const AFTER_MS = 2600;
/** Streamed pieces whose interleaving with each other depends on how fast the model and the voice run, not on speculation. */
const STREAMED = new Set(['response.output_audio.delta', 'response.output_audio_transcript.delta']);

/** What a client can tell of a conversation: the events in order (streamed pieces joined per kind), without ids. */
interface Heard {
  types: string[];
  transcripts: string[];
  replyText: string;
  replyAudio: string;
}

function heard(events: ServerEvent[]): Heard {
  const after = events.filter((e) => e.type !== 'session.created');
  return {
    types: after.filter((e) => !STREAMED.has(e.type)).map((e) => e.type),
    transcripts: after.filter((e) => e.type === 'conversation.item.input_audio_transcription.completed').map((e) => e.transcript as string),
    replyText: after
      .filter((e) => e.type === 'response.output_audio_transcript.delta')
      .map((e) => e.delta as string)
      .join(''),
    replyAudio: after
      .filter((e) => e.type === 'response.output_audio.delta')
      .map((e) => Buffer.from(e.delta as string, 'base64').toString('hex'))
      .join(''),
  };
}

const responsesDone = (client: RealtimeClient) => client.events.filter((e) => e.type === 'response.done').length;

/** One caller saying the sentences, each answered before the next. */
async function converse(wsUrl: string, apiKey: string, type: 'server_vad' | 'semantic_vad'): Promise<Heard> {
  const { client } = await openSession(wsUrl, apiKey, {
    output_modalities: ['audio'],
    audio: { input: { format: { type: 'audio/pcm', rate: RATE }, turn_detection: { type }, transcription: { model: 'svc-stt-3.1' } } },
  });
  try {
    for (const [i, file] of SENTENCES.entries()) {
      await speakAtRealTimePace(client, recording(file));
      await speakAtRealTimePace(client, new Int16Array((AFTER_MS / 1000) * RATE));
      // A loaded machine answers late: the reply must be complete before the next sentence.
      const deadline = performance.now() + 60_000;
      while (responsesDone(client) < i + 1 && performance.now() < deadline) await sleep(50);
    }
    return heard(client.events);
  } finally {
    await client.close();
  }
}

/**
 * Speculation through the real server (Silero VAD, pocketsphinx, the embedded model, Flite) and a
 * WebSocket client: the same recorded sentences, with the replies begun at the pause and without,
 * give the client the same events, words and audio.
 */
describe('realtime e2e: a reply begun at the pause changes nothing the client sees', function () {
  this.timeout(300_000);
  afterEach(() => expect(takeViolations()).to.deep.equal([]));
  before(() => requireRecognizer());

  it('server_vad and semantic_vad: the same events, transcripts, reply text and audio with speculation on and off', async () => {
    const runs: Record<string, { server_vad: Heard; semantic_vad: Heard; counts: { used: number; discarded: number } }> = {};
    for (const speculation of ['false', 'true']) {
      const s = await startRealtimeServer({
        env: {
          SVC_REALTIME_SPECULATION: speculation,
          // What is compared is the turn path, not the guard: a machine loaded by others must not turn speculation off here.
          SVC_REALTIME_MAX_EVENT_LOOP_LAG_MS: '600000',
          SVC_REALTIME_MAX_RECOGNIZER_BACKLOG_MS: '600000',
          // Nor may it drop a turn whose transcript is late: every sentence is answered in both runs.
          SVC_REALTIME_TRANSCRIPT_DEADLINE_MS: '120000',
        },
      });
      try {
        const server_vad = await converse(s.wsUrl, s.apiKey, 'server_vad');
        const semantic_vad = await converse(s.wsUrl, s.apiKey, 'semantic_vad');
        runs[speculation] = { server_vad, semantic_vad, counts: await speculationCounts(s.baseUrl, s.apiKey) };
      } finally {
        await s.close();
      }
    }
    const off = runs.false!;
    const on = runs.true!;
    for (const mode of ['server_vad', 'semantic_vad'] as const) {
      expect(
        off[mode].types.filter((t) => t === 'response.done'),
        mode,
      ).to.have.length(SENTENCES.length);
      expect(off[mode].replyAudio.length, mode).to.be.greaterThan(0);
      expect(on[mode], mode).to.deep.equal(off[mode]);
    }
    console.log(`      speculation: ${on.counts.used} used, ${on.counts.discarded} discarded over ${2 * SENTENCES.length} turns`);
    expect(off.counts).to.deep.equal({ used: 0, discarded: 0 });
    // The replies were really prepared ahead, and at least one was sent from what was prepared.
    expect(on.counts.used).to.be.at.least(1);
  });
});
