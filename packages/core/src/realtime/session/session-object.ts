import { avatarObject } from './avatar-input.js';
import type { RealtimeSessionConfig } from './session-config.js';

/** The GA `session` object of `session.created` / `session.updated`. */
export function toSessionObject(config: RealtimeSessionConfig, sessionId: string, expiresAtSeconds: number) {
  return {
    type: config.type,
    object: 'realtime.session' as const,
    id: sessionId,
    model: config.model,
    output_modalities: [...config.output_modalities],
    instructions: config.instructions,
    tools: config.tools.map((t) => ({ ...t })),
    tool_choice: typeof config.tool_choice === 'object' ? { ...config.tool_choice } : config.tool_choice,
    temperature: config.temperature,
    max_output_tokens: config.max_output_tokens,
    truncation: config.truncation,
    tracing: null,
    prompt: null,
    include: null,
    expires_at: expiresAtSeconds,
    audio: JSON.parse(JSON.stringify(config.audio)) as RealtimeSessionConfig['audio'],
    // extension, only when a face is set (the GA object has no such field)
    ...(config.avatar ? { avatar: avatarObject(config.avatar) } : {}),
  };
}

export type RealtimeSessionObject = ReturnType<typeof toSessionObject>;
