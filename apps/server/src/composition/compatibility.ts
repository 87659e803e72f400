import {
  OPENAI_MODEL_ALIASES,
  REALTIME_MODEL,
  SHARED_TOKENS,
  SPEECH_MODEL,
  SPEECH_TOKENS,
  TRANSCRIPTION_MODEL,
  VIDEO_MODEL,
  isOpenAiModelAlias,
  unixSeconds,
  type Clock,
  type ModelAliasKind,
  type SpeechSynthesizer,
} from '@svc/core';
import { modelsRoutes, type ModelEntry } from '@svc/adapters-http';
import { setting } from '../env-settings.js';
import { SERVER_TOKENS } from '../tokens.js';
import { defineModule } from './module.js';
import type { SelectedRecognizer } from './speech-recognition.js';

const KINDS = Object.keys(OPENAI_MODEL_ALIASES) as ModelAliasKind[];
const OWNER = 'svc';

/** A neural engine reports the models it loaded (Piper, Kokoro); the embedded engines have none. */
type WithModels = SpeechSynthesizer & { loadedModels?: () => { engine: string; model: string }[] };

/**
 * Drop-in compatibility with OpenAI clients (docs/compatibility.md): the opt-in acceptance of
 * OpenAI's model names (read by the speech and realtime modules), and GET /v1/models.
 */
export const compatibilityModule = defineModule({
  name: 'compatibility',
  docs: 'docs/compatibility.md',
  settings: {
    /** Accept tts-1 / gpt-4o-mini-tts, gpt-realtime ... as aliases of this service's models. */
    SVC_OPENAI_MODEL_ALIASES: setting.bool(false),
  },
  bind() {
    // Nothing of its own: the model list is built from what the other modules bound.
  },
  routes({ config, get }) {
    const aliases = config.settings.SVC_OPENAI_MODEL_ALIASES;
    const created = unixSeconds(get<Clock>(SHARED_TOKENS.Clock).now());
    const synthesizers = get<WithModels[]>(SPEECH_TOKENS.SpeechSynthesizers);
    const recognizer = get<SelectedRecognizer | null>(SERVER_TOKENS.SelectedRecognizer);
    const entry = (id: string, owned_by = OWNER): ModelEntry => ({ id, created, owned_by });
    const models: ModelEntry[] = [
      entry(SPEECH_MODEL),
      entry(TRANSCRIPTION_MODEL),
      entry(REALTIME_MODEL),
      entry(VIDEO_MODEL),
      ...(recognizer ? [entry(recognizer.name, recognizer.name.split(':')[0])] : []),
      ...synthesizers.flatMap((s) => s.loadedModels?.() ?? []).map((m) => entry(`${m.engine}:${m.model}`, m.engine)),
      ...(aliases ? KINDS.flatMap((kind) => OPENAI_MODEL_ALIASES[kind].map((id) => entry(id))) : []),
    ];
    // A dated snapshot (gpt-4o-mini-tts-2025-12-15) is accepted by the endpoints, so it can be retrieved too.
    const resolveUnlisted = (id: string): ModelEntry | null =>
      aliases && KINDS.some((kind) => isOpenAiModelAlias(kind, id)) ? entry(id) : null;
    return { authenticated: [modelsRoutes({ models: () => models, resolveUnlisted })] };
  },
});
