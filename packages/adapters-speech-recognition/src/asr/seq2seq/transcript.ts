// The transcript types live in the core (the transcription use case and the recognizers share them).
export type { DetailedTranscript, TranscriptSegment, TranscriptWord } from '@svc/core';
