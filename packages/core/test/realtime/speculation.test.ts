import { expect } from 'chai';
import type { LanguageModelEvent, LanguageModelRequest, ReplySpeaker, ReplySpeechRequest, ServerLoad } from '../../src/realtime/index.js';
import { CountingQuota, EnergyVad, FakeStreamingRecognizer, flush, pcmBase64, ScriptedLanguageModel } from '../fakes/index.js';
import { startTextSession, type Harness } from './support/session-harness.js';

const RATE = 24000;
/** Speech the fake detector hears (every sample above its level); its pitch is unknown, so semantic_vad waits at a pause. */
const speech = (ms: number) => pcmBase64(ms, RATE, 5000);
const silence = (ms: number) => pcmBase64(ms, RATE, 0);

/** A speaker that records each request with its signal, and can hold its second chunk until released or aborted. */
class RecordingSpeaker implements ReplySpeaker {
  calls: { request: ReplySpeechRequest; signal: AbortSignal }[] = [];
  hold = false;
  private releases: (() => void)[] = [];
  release(): void {
    for (const r of this.releases.splice(0)) r();
  }
  async *speak(request: ReplySpeechRequest, signal: AbortSignal): AsyncIterable<Int16Array> {
    this.calls.push({ request, signal });
    yield new Int16Array(request.text.length * 5).fill(1000);
    if (this.hold) {
      await new Promise<void>((resolve) => {
        this.releases.push(resolve);
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    if (signal.aborted) return;
    yield new Int16Array(request.text.length * 5).fill(-1000);
  }
}

interface Setup {
  speculate: boolean;
  turnDetection: 'server_vad' | 'semantic_vad';
  partial: string;
  final: string;
  script?: LanguageModelEvent[];
  load?: Partial<ServerLoad>;
  loadLimits?: { maxRecognizerBacklogMs: number; maxEventLoopLagMs: number };
  quota?: CountingQuota;
  tools?: unknown[];
}

interface Session {
  h: Harness;
  lm: ScriptedLanguageModel;
  speaker: RecordingSpeaker;
  recognizer: FakeStreamingRecognizer;
  /** The events sent before each model request was made. */
  eventsAtRequest: string[][];
  /** What became of each reply begun on a guess. */
  outcomes: string[];
}

async function session(s: Setup): Promise<Session> {
  const eventsAtRequest: string[][] = [];
  const outcomes: string[] = [];
  let h: Harness | null = null;
  const script = s.script ?? [
    { type: 'text', delta: 'Sure, I can help' },
    { type: 'text', delta: ' with that. Anything else?' },
  ];
  const lm = new ScriptedLanguageModel(() => {
    eventsAtRequest.push(h ? h.out.types() : []);
    return script;
  });
  const speaker = new RecordingSpeaker();
  const recognizer = new FakeStreamingRecognizer(s.final);
  recognizer.partialText = s.partial;
  const load: ServerLoad = { budgetCores: 1, sessionCores: 0.1, recognizerBacklogMs: 0, recognizerQueue: 0, eventLoopLagMs: 0, ...s.load };
  h = await startTextSession(
    {
      lm,
      ...(s.quota ? { quota: s.quota } : {}),
      audio: { voiceActivityDetector: new EnergyVad(), speechRecognizer: recognizer, replySpeaker: speaker },
      deps: {
        speculativeReplies: s.speculate,
        load: { read: () => load },
        ...(s.loadLimits ? { loadLimits: s.loadLimits } : {}),
        speculated: (o) => outcomes.push(o),
      },
    },
    {
      output_modalities: ['audio'],
      ...(s.tools ? { tools: s.tools } : {}),
      audio: {
        input: { turn_detection: { type: s.turnDetection }, transcription: { model: 'svc-stt-3.1' } },
        output: { format: { type: 'audio/pcm', rate: RATE } },
      },
    },
  );
  return { h, lm, speaker, recognizer, eventsAtRequest, outcomes };
}

/** Appends `ms` of silence in 20 ms chunks (as clients stream), letting the engine work between them. */
async function silent(h: Harness, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 20) await h.send({ type: 'input_audio_buffer.append', audio: silence(20) });
  await flush();
}

/** One spoken turn: speech, a pause long enough to end it, and the reply. */
async function turn(s: Setup): Promise<Session> {
  const x = await session(s);
  await x.h.send({ type: 'input_audio_buffer.append', audio: speech(1200) });
  await silent(x.h, 1400);
  await flush();
  return x;
}

const finished = { partial: 'i would like a coffee', final: 'i would like a coffee' };

describe('speculation: the reply begun while the end of a turn is decided', () => {
  for (const turnDetection of ['semantic_vad', 'server_vad'] as const) {
    it(`${turnDetection}: a prepared reply that holds sends the same events as a turn without speculation, and asks the model before the turn ends`, async () => {
      const plain = await turn({ speculate: false, turnDetection, ...finished });
      const fast = await turn({ speculate: true, turnDetection, ...finished });
      expect(plain.h.out.types()).to.include('response.done');
      expect(fast.h.out.events).to.deep.equal(plain.h.out.events);
      // One model request each: the speculation's, adopted by the response.
      expect(fast.lm.requests).to.have.length(1);
      expect(fast.eventsAtRequest[0]).not.to.include('input_audio_buffer.speech_stopped');
      expect(plain.eventsAtRequest[0]).to.include('input_audio_buffer.speech_stopped');
      // Its first clause was synthesized once, before the turn ended, and that audio was sent.
      expect(fast.speaker.calls.map((c) => c.request)).to.deep.equal(plain.speaker.calls.map((c) => c.request));
      expect(fast.lm.requests[0]!.signal.aborted).to.equal(true); // the response is over: its work ended with it
      expect(fast.outcomes).to.deep.equal(['used']);
    });
  }

  it('server_vad: the reply is begun once silence begins, but sent only after silence_duration_ms', async () => {
    const x = await session({ speculate: true, turnDetection: 'server_vad', ...finished });
    await x.h.send({ type: 'input_audio_buffer.append', audio: speech(1200) });
    await silent(x.h, 300);
    expect(x.lm.requests).to.have.length(1);
    expect(x.speaker.calls).to.have.length(1);
    expect(x.h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
    await silent(x.h, 300);
    expect(x.h.out.types()).to.include('input_audio_buffer.speech_stopped');
    expect(x.h.out.types()).to.include('response.created');
  });

  it('semantic_vad: the reply is begun at a short silence, before the pause is judged; server_vad waits for its longer one', async () => {
    const semantic = await session({ speculate: true, turnDetection: 'semantic_vad', ...finished });
    const server = await session({ speculate: true, turnDetection: 'server_vad', ...finished });
    for (const x of [semantic, server]) {
      await x.h.send({ type: 'input_audio_buffer.append', audio: speech(1200) });
      await silent(x.h, 140);
    }
    expect(semantic.lm.requests).to.have.length(1);
    expect(semantic.speaker.calls).to.have.length(1);
    expect(semantic.h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
    expect(server.lm.requests).to.have.length(0);
    // The turn ends at the pause: the reply begun before it is the one sent.
    await silent(semantic.h, 1400);
    expect(semantic.h.out.types()).to.include('response.done');
    expect(semantic.lm.requests).to.have.length(1);
    expect(semantic.outcomes).to.deep.equal(['used']);
  });

  for (const turnDetection of ['semantic_vad', 'server_vad'] as const) {
    it(`${turnDetection}: a user who goes on after the pause hears nothing of the discarded reply; its model request and synthesis are aborted`, async () => {
      const x = await session({ speculate: true, turnDetection, ...finished });
      x.lm.holdAfter = 2; // the model is still streaming when the user goes on
      x.speaker.hold = true; // and the first clause still being synthesized
      await x.h.send({ type: 'input_audio_buffer.append', audio: speech(1200) });
      await silent(x.h, 300);
      expect(x.lm.requests).to.have.length(1);
      expect(x.speaker.calls).to.have.length(1);
      const speculated = { model: x.lm.requests[0]!.signal, speech: x.speaker.calls[0]!.signal };
      expect(speculated.model.aborted).to.equal(false);
      await x.h.send({ type: 'input_audio_buffer.append', audio: speech(600) });
      await flush();
      expect(speculated.model.aborted).to.equal(true);
      expect(speculated.speech.aborted).to.equal(true);
      expect(x.h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
      expect(x.outcomes).to.deep.equal(['discarded']);
    });
  }

  it('the whole turn with a discarded speculation sends exactly what it sends without speculation', async () => {
    const run = async (speculate: boolean) => {
      const x = await session({
        speculate,
        turnDetection: 'semantic_vad',
        partial: 'i would like a coffee',
        final: 'i would like a coffee and a bagel',
      });
      await x.h.send({ type: 'input_audio_buffer.append', audio: speech(1200) });
      await silent(x.h, 300);
      x.recognizer.partialText = 'i would like a coffee and a bagel';
      await x.h.send({ type: 'input_audio_buffer.append', audio: speech(600) });
      await silent(x.h, 1400);
      await flush();
      return x;
    };
    const plain = await run(false);
    const fast = await run(true);
    expect(fast.h.out.events).to.deep.equal(plain.h.out.events);
    // The first guess was asked and aborted; the second (the last words) was used.
    expect(fast.lm.requests).to.have.length(2);
    expect(fast.lm.requests[0]!.messages.at(-1)).to.deep.equal({ role: 'user', content: 'i would like a coffee' });
    expect(fast.lm.requests[0]!.signal.aborted).to.equal(true);
  });

  it('a final transcript that differs from the partial one discards the prepared reply and answers the final words', async () => {
    const plain = await turn({
      speculate: false,
      turnDetection: 'semantic_vad',
      partial: 'i would like a coffee',
      final: 'i would like a toffee',
    });
    const fast = await turn({
      speculate: true,
      turnDetection: 'semantic_vad',
      partial: 'i would like a coffee',
      final: 'i would like a toffee',
    });
    expect(fast.h.out.events).to.deep.equal(plain.h.out.events);
    expect(fast.lm.requests).to.have.length(2);
    expect(fast.lm.requests[0]!.signal.aborted).to.equal(true);
    expect(fast.lm.requests[1]!.messages.at(-1)).to.deep.equal({ role: 'user', content: 'i would like a toffee' });
    expect(fast.outcomes).to.deep.equal(['discarded']);
  });

  it('a final transcript differing only in case and punctuation uses the prepared reply', async () => {
    const fast = await turn({
      speculate: true,
      turnDetection: 'semantic_vad',
      partial: 'I would like a coffee',
      final: 'i would like a coffee.',
    });
    expect(fast.lm.requests).to.have.length(1);
    expect(fast.h.out.types()).to.include('response.done');
  });

  it('a function call is generated ahead but its item is sent only with the response, as without speculation', async () => {
    const script: LanguageModelEvent[] = [
      { type: 'tool_call', index: 0, callId: 'call_1', name: 'order' },
      { type: 'tool_call_arguments', index: 0, delta: '{"item":"coffee"}' },
    ];
    const tools = [{ type: 'function', name: 'order', description: 'Orders', parameters: { type: 'object' } }];
    const plain = await turn({ speculate: false, turnDetection: 'semantic_vad', ...finished, script, tools });
    const fast = await turn({ speculate: true, turnDetection: 'semantic_vad', ...finished, script, tools });
    expect(fast.h.out.events).to.deep.equal(plain.h.out.events);
    expect(fast.h.out.types()).to.include('response.function_call_arguments.done');
    expect(fast.eventsAtRequest[0]).not.to.include('input_audio_buffer.speech_stopped');
  });

  it('nothing is begun on a guess while the server is behind, or when speculation is off', async () => {
    for (const setup of [
      { speculate: true, load: { eventLoopLagMs: 400 } },
      { speculate: true, load: { recognizerQueue: 2 } },
      { speculate: false },
    ]) {
      const x = await session({ turnDetection: 'server_vad', ...finished, ...setup });
      await x.h.send({ type: 'input_audio_buffer.append', audio: speech(1200) });
      await silent(x.h, 300);
      expect(x.lm.requests, JSON.stringify(setup)).to.have.length(0);
      await silent(x.h, 300);
      expect(x.lm.requests).to.have.length(1);
    }
    // The guards are the admission's, as the operator set them.
    const tolerant = await session({
      speculate: true,
      turnDetection: 'server_vad',
      ...finished,
      load: { eventLoopLagMs: 400 },
      loadLimits: { maxRecognizerBacklogMs: 1000, maxEventLoopLagMs: 1000 },
    });
    await tolerant.h.send({ type: 'input_audio_buffer.append', audio: speech(1200) });
    await silent(tolerant.h, 300);
    expect(tolerant.lm.requests).to.have.length(1);
  });

  it('waits for the recognizer to reach the end of the speech before it begins a reply on its words', async () => {
    const x = await session({ speculate: true, turnDetection: 'server_vad', ...finished });
    // 300 ms of silence heard, 400 ms of audio unheard: the speech's last 100 ms among it
    x.recognizer.behindMs = 400;
    await x.h.send({ type: 'input_audio_buffer.append', audio: speech(1200) });
    await silent(x.h, 300);
    expect(x.lm.requests).to.have.length(0);
    // only silence left unheard: the words are the speech's
    x.recognizer.behindMs = 100;
    await silent(x.h, 40);
    expect(x.lm.requests).to.have.length(1);
    expect(x.h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
  });

  it('a response the quota refuses discards the prepared reply (nothing was charged for it)', async () => {
    const quota = new CountingQuota(0);
    const x = await turn({ speculate: true, turnDetection: 'semantic_vad', ...finished, quota });
    expect(x.lm.requests).to.have.length(1);
    expect(x.lm.requests[0]!.signal.aborted).to.equal(true);
    expect(x.outcomes).to.deep.equal(['discarded']);
    expect(quota.calls).to.have.length(1); // the refused response's, none for the speculation
    expect(x.h.out.types()).not.to.include('response.created');
  });

  it('a session that closes aborts what it prepared', async () => {
    const x = await session({ speculate: true, turnDetection: 'semantic_vad', ...finished });
    x.lm.holdAfter = 1;
    await x.h.send({ type: 'input_audio_buffer.append', audio: speech(1200) });
    await silent(x.h, 300);
    const request: LanguageModelRequest = x.lm.requests[0]!;
    x.h.engine.transportClosed();
    expect(request.signal.aborted).to.equal(true);
  });
});
