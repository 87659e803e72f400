/** Receives synthesis measurements (the server turns them into Prometheus metrics). */
export interface SpeechObserver {
  synthesized(sample: { engine: string; audioSeconds: number; computeSeconds: number }): void;
}
export const nullSpeechObserver: SpeechObserver = { synthesized() {} };
