// Drives a detector stream over whole signals for the tests (not a test file itself).
import type { VoiceActivityEvent, VoiceActivityOptions, VoiceActivityDetector } from '@svc/core';

export const BASE_OPTIONS: VoiceActivityOptions = {
  sampleRate: 16000,
  threshold: 0.5,
  prefixPaddingMs: 0,
  silenceDurationMs: 500,
  minSpeechDurationMs: 0,
  mode: 'server_vad',
};

/** Pushes `samples` in chunks of `chunkSizes` (cycled), awaiting each push, and collects the events. */
export async function detect(
  detector: VoiceActivityDetector,
  samples: Int16Array,
  options: Partial<VoiceActivityOptions> = {},
  chunkSizes: readonly number[] = [1600],
): Promise<VoiceActivityEvent[]> {
  const stream = detector.open({ ...BASE_OPTIONS, ...options });
  const events: VoiceActivityEvent[] = [];
  let offset = 0;
  for (let i = 0; offset < samples.length; i++) {
    const size = chunkSizes[i % chunkSizes.length]!;
    events.push(...(await stream.push(samples.subarray(offset, offset + size))));
    offset += size;
  }
  stream.close?.();
  return events;
}

export interface Segment {
  startMs: number;
  endMs: number | null;
}

/** Pairs started/stopped events into segments; fails on an out-of-order sequence. */
export function segments(events: readonly VoiceActivityEvent[]): Segment[] {
  const out: Segment[] = [];
  for (const event of events) {
    const open = out.length > 0 && out[out.length - 1]!.endMs === null;
    if (event.type === 'speech_started') {
      if (open) throw new Error(`speech_started while speaking: ${JSON.stringify(events)}`);
      out.push({ startMs: event.audioStartMs, endMs: null });
    } else {
      if (!open) throw new Error(`speech_stopped without speech: ${JSON.stringify(events)}`);
      out[out.length - 1]!.endMs = event.audioEndMs;
    }
  }
  return out;
}
