import { scanRecognitionModels, scanTurnModels, type RecognitionModelScan, type TurnModelEntry } from '@svc/adapters-speech-recognition';
import { scanVoiceModels, type PiperModel, type VoiceModelScan } from '@svc/adapters-speech-synthesis';

/** Everything in the model directory: each engine family's own scan, side by side. */
export interface ModelScan {
  piper: PiperModel[];
  kokoro: VoiceModelScan['kokoro'];
  /** Whisper / Moonshine folders in the transformers.js ONNX layout (kind `asr`). */
  asr: RecognitionModelScan['asr'];
  /** semantic_vad's end-of-turn models (Smart Turn folders, kind `turn`). */
  turn: TurnModelEntry[];
  /** One line per model that was skipped, saying why (the voices' first, then the recognizers'). */
  warnings: string[];
}

/** Scans the model directory once per engine family (the server at start-up, `models list|verify`). */
export async function scanModelDirectory(dir: string): Promise<ModelScan> {
  const [voices, recognizers, turn] = await Promise.all([scanVoiceModels(dir), scanRecognitionModels(dir), scanTurnModels(dir)]);
  return {
    piper: voices.piper,
    kokoro: voices.kokoro,
    asr: recognizers.asr,
    turn,
    warnings: [...voices.warnings, ...recognizers.warnings],
  };
}
