import type { VoicePage, VoiceSummary } from '@svc/core';

/**
 * `created_at` is an ISO 8601 UTC string: the spec types the Voice field as a string (video and
 * client-secret times are integers there, and stay so). Second precision, like those.
 */
export function formatCreatedAt(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function presentVoice(voice: VoiceSummary) {
  return { voice: voice.id, ref_text: voice.refText, description: voice.description, created_at: formatCreatedAt(voice.createdAt) };
}

export function presentVoiceList(page: VoicePage) {
  return {
    object: 'list' as const,
    data: page.voices.map((v) => ({ voice: v.id, description: v.description, created_at: formatCreatedAt(v.createdAt) })),
    has_more: page.hasMore,
    first_id: page.voices[0]?.id ?? null,
    last_id: page.voices.at(-1)?.id ?? null,
  };
}

export function presentVoiceDeleted(voiceId: string) {
  return { voice_id: voiceId, object: 'voice' as const, deleted: true as const };
}
