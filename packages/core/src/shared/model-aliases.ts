/**
 * OpenAI's model names, accepted as aliases of this service's own models only when an operator
 * turns the compatibility mode on (SVC_OPENAI_MODEL_ALIASES): the interface allows only its own
 * ids, and SDKs that default to OpenAI's names (the AI SDK's `openai.speech('tts-1')`, LiveKit's
 * TTS plugin, `gpt-realtime` in realtime clients) then work without changing their model.
 */
export type ModelAliasKind = 'speech' | 'transcription' | 'realtime';

/** The undated names; each also accepts a dated snapshot `<name>-YYYY-MM-DD`. */
export const OPENAI_MODEL_ALIASES: Readonly<Record<ModelAliasKind, readonly string[]>> = {
  speech: ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'tts-1-1106', 'tts-1-hd-1106'],
  transcription: ['whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe'],
  realtime: [
    'gpt-realtime',
    'gpt-realtime-mini',
    'gpt-realtime-1.5',
    'gpt-realtime-2',
    'gpt-realtime-2.1',
    'gpt-realtime-2.1-mini',
    'gpt-4o-realtime-preview',
    'gpt-4o-mini-realtime-preview',
  ],
};

/** `tts-1-hd` and `tts-1-1106` are whole names; only a `-YYYY-MM-DD` suffix is a snapshot. */
const DATED = /-\d{4}-\d{2}-\d{2}$/;

export function isOpenAiModelAlias(kind: ModelAliasKind, model: string): boolean {
  const undated = model.replace(DATED, '');
  return OPENAI_MODEL_ALIASES[kind].includes(model) || OPENAI_MODEL_ALIASES[kind].includes(undated);
}

/** The names accepted, for an error message: the service's own id, and OpenAI's when aliases are on. */
export function acceptedModelNames(kind: ModelAliasKind, own: string, openAiAliases: boolean): string {
  if (!openAiAliases) return `'${own}'`;
  return `'${own}' or OpenAI's ${OPENAI_MODEL_ALIASES[kind].map((n) => `'${n}'`).join(', ')} (and their dated snapshots)`;
}

/** Whether a model name is accepted: the service's own id always, OpenAI's names when aliases are on. */
export function acceptsModel(kind: ModelAliasKind, model: string, own: string, openAiAliases: boolean): boolean {
  return model === own || (openAiAliases && isOpenAiModelAlias(kind, model));
}
