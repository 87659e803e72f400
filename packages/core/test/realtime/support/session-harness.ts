import {
  RealtimeSessionEngine,
  type RealtimeServerEvent,
  type RealtimeAudioPorts,
  type RealtimeEngineDeps,
  type RealtimeSessionOptions,
} from '../../../src/realtime/index.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { FakeClock } from '../../fakes/fake-clock.js';
import { SequentialIds } from '../../fakes/fake-ids.js';
import { CollectingOutput, CountingQuota, FakeVoiceDirectory, flush, ScriptedLanguageModel } from '../../fakes/index.js';

export interface Harness {
  /** The session.created event of startTextSession. */
  created?: RealtimeServerEvent;
  engine: RealtimeSessionEngine;
  out: CollectingOutput;
  clock: FakeClock;
  lm: ScriptedLanguageModel;
  quota: CountingQuota;
  voices: FakeVoiceDirectory;
  /** Sends one client event and lets background work settle. */
  send(event: unknown): Promise<void>;
}

export interface HarnessOptions {
  lm?: ScriptedLanguageModel;
  quota?: CountingQuota;
  audio?: RealtimeAudioPorts;
  deps?: Partial<RealtimeEngineDeps>;
  options?: Partial<RealtimeSessionOptions>;
}

export const PRINCIPAL = { apiKeyId: 'key_test', name: 'test' };

export function createHarness(o: HarnessOptions = {}): Harness {
  const clock = new FakeClock();
  const lm = o.lm ?? new ScriptedLanguageModel();
  const quota = o.quota ?? new CountingQuota();
  const voices = new FakeVoiceDirectory();
  const out = new CollectingOutput();
  const deps: RealtimeEngineDeps = {
    clock,
    ids: new SequentialIds(),
    logger: silentLogger,
    languageModel: lm,
    voices,
    quota,
    audio: o.audio,
    ...o.deps,
  };
  const engine = new RealtimeSessionEngine(deps, { principal: PRINCIPAL, urlModel: null, maxDurationSec: 1800, ...o.options }, out);
  return {
    engine,
    out,
    clock,
    lm,
    quota,
    voices,
    async send(event: unknown) {
      await engine.handle(event);
      await flush();
    },
  };
}

/** A started text session with manual turns (the simplest deterministic setup). */
export async function startTextSession(o: HarnessOptions = {}, session: Record<string, unknown> = {}): Promise<Harness> {
  const h = createHarness(o);
  await h.send({
    type: 'session.update',
    session: {
      type: 'realtime',
      model: 'svc-realtime',
      output_modalities: ['text'],
      audio: { input: { turn_detection: null } },
      ...session,
    },
  });
  if (h.out.closed) throw new Error(`session failed: ${JSON.stringify(h.out.events)}`);
  h.created = h.out.last('session.created');
  h.out.reset();
  return h;
}

export function userText(text: string, id?: string) {
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text }], ...(id ? { id } : {}) };
}
