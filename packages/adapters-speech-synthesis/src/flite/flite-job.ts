import type { OutputSpec } from '../output-audio.js';

/** One flite run, as sent to a flite worker thread. */
export interface FliteJobRequest {
  voice: string;
  text: string;
  /** Extra command-line arguments (features), see fliteSynthesisPlan. */
  args: string[];
  output: OutputSpec;
}

/** A segment (phone or pause) and the time its audio ends, in seconds, as flite reports it (`-psdur`). */
export interface FliteSegment {
  phone: string;
  end: number;
}

export interface FliteJobResult {
  /** At the requested rate, volume applied. */
  samples: Int16Array;
  /** Segment times of flite's own rendering (before any playback-rate change). */
  segments: FliteSegment[];
  /** The call ran in an instance an earlier call ran in, its memory restored (not a fresh one). */
  reusedInstance: boolean;
}

/** Parses flite's `-psdur` output: `pau:0.164 hh:0.255 ...` (one line per utterance, times restart). */
export function parseSegmentDurations(stdout: string): FliteSegment[] {
  const segments: FliteSegment[] = [];
  let offset = 0;
  for (const line of stdout.split('\n')) {
    let last = 0;
    for (const token of line.trim().split(/\s+/)) {
      const m = /^(.+):(\d+(?:\.\d+)?)$/.exec(token);
      if (!m) continue;
      const end = Number(m[2]);
      segments.push({ phone: m[1]!, end: offset + end });
      last = end;
    }
    offset += last;
  }
  return segments;
}
