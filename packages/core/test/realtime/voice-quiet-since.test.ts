import { expect } from 'chai';
import { VOICE_OVER_QUIET_DB, voiceQuietSince } from '../../src/realtime/audio/voice-quiet-since.js';
import { concatPcm } from '../../src/shared/audio.js';
import { seededNoise } from '../fakes/index.js';

const RATE = 16000;
const noise = seededNoise(7);
/** Sound of RMS `dbfs` (a sine at `hz` for a voice, seeded noise for the room), `ms` long. */
function sound(ms: number, dbfs: number, hz?: number): Int16Array {
  const out = new Int16Array(Math.round((ms / 1000) * RATE));
  const rms = 32768 * 10 ** (dbfs / 20);
  for (let i = 0; i < out.length; i++)
    out[i] = Math.round(hz ? rms * Math.SQRT2 * Math.sin((2 * Math.PI * hz * i) / RATE) : rms * Math.sqrt(3) * noise());
  return out;
}
const join = (...parts: Int16Array[]) => concatPcm(parts);

describe('where the voice went quiet (voiceQuietSince)', () => {
  it('a soft end a few dB over the room is quiet: the voice ended before it', () => {
    // 300 ms of room, 800 ms of voice 30 dB over it, 160 ms of breath 6 dB over the room, then the room
    const audio = join(sound(300, -45), sound(800, -15, 140), sound(160, -39), sound(300, -45));
    expect(voiceQuietSince(audio, RATE, 1000)).to.equal(1000 + 1100);
  });

  it('an end louder than the room by the bound or more is still voice', () => {
    const audio = join(sound(300, -45), sound(800, -15, 140), sound(160, -45 + VOICE_OVER_QUIET_DB + 4), sound(300, -45));
    expect(voiceQuietSince(audio, RATE, 0)).to.equal(1260);
  });

  it('digital silence after the voice: the voice ends at its last sample', () => {
    const audio = join(new Int16Array(RATE / 2), sound(500, -20, 200), new Int16Array(RATE / 2));
    expect(voiceQuietSince(audio, RATE, 0)).to.equal(1000);
  });

  it("digital silence after the room's noise: the room still sets the level, and the voice ends before the noise", () => {
    // A client that sends zeros between its phrases: the recording's own noise after the last word is not voice.
    const audio = join(new Int16Array(RATE / 2), sound(300, -45), sound(800, -15, 140), sound(300, -45), new Int16Array(RATE / 2));
    expect(voiceQuietSince(audio, RATE, 0)).to.equal(500 + 300 + 800);
  });

  it('no voice over the room, or too little audio to tell: null', () => {
    expect(voiceQuietSince(sound(1000, -45), RATE, 0)).to.equal(null);
    expect(voiceQuietSince(sound(50, -15, 140), RATE, 0)).to.equal(null);
  });
});
