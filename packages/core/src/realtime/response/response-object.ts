import type { ConversationItem } from '../conversation/items.js';
import type { AudioFormat } from '../session/session-config.js';

export type ResponseStatus = 'in_progress' | 'completed' | 'cancelled';

export interface ResponseDescription {
  id: string;
  conversationId: string;
  outputModalities: ['audio'] | ['text'];
  maxOutputTokens: number | 'inf';
  outputFormat: AudioFormat;
  voice: string;
}

/**
 * The GA `response` object. `usage` and `status_details` are always null (spec); `metadata` is
 * only filled on `response.created`.
 */
export function responseObject(
  d: ResponseDescription,
  status: ResponseStatus,
  output: ConversationItem[],
  metadata: Record<string, string> | null,
) {
  return {
    object: 'realtime.response' as const,
    id: d.id,
    status,
    status_details: null,
    output,
    conversation_id: d.conversationId,
    output_modalities: [...d.outputModalities],
    max_output_tokens: d.maxOutputTokens,
    audio: { output: { format: { ...d.outputFormat }, voice: d.voice } },
    usage: null,
    metadata,
  };
}
