import { expect } from 'chai';
import { EnergyVad, FakeStreamingRecognizer, pcmBase64 } from '../fakes/index.js';
import { startTextSession } from './support/session-harness.js';

/** A streaming recognizer that counts the reservations sessions hold on it. */
class ReservingRecognizer extends FakeStreamingRecognizer {
  held = 0;
  taken = 0;
  reserve(): () => void {
    this.held++;
    this.taken++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
    };
  }
}

describe('realtime: a session sending audio with turn detection reserves a decoder before its first turn', () => {
  async function session(turnDetection: Record<string, unknown> | null) {
    const recognizer = new ReservingRecognizer('what time is it');
    const h = await startTextSession(
      { audio: { voiceActivityDetector: new EnergyVad(), speechRecognizer: recognizer } },
      { audio: { input: { turn_detection: turnDetection } } },
    );
    const update = (td: Record<string, unknown> | null) =>
      h.send({ type: 'session.update', session: { type: 'realtime', audio: { input: { turn_detection: td } } } });
    return { h, recognizer, update };
  }

  // Silence is enough: audio is coming, so a decoder should be ready before the first words.
  const audio = (h: Awaited<ReturnType<typeof session>>['h']) => h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(100) });

  it('holds none until audio comes, one while turns are detected, none with manual turns, and none after the session', async () => {
    const { h, recognizer, update } = await session({ type: 'server_vad' });
    expect(recognizer.held, 'a session that has sent no audio (text only)').to.equal(0);
    await audio(h);
    expect(recognizer.held, 'server_vad, audio coming').to.equal(1);
    await update(null);
    expect(recognizer.held, 'manual turns').to.equal(0);
    await update({ type: 'semantic_vad' });
    await audio(h);
    expect(recognizer.held, 'semantic_vad').to.equal(1);
    h.engine.transportClosed();
    expect(recognizer.held, 'after the session ended').to.equal(0);
  });

  it('keeps its reservation when turn detection is only retuned (no release and reserve again)', async () => {
    const { h, recognizer, update } = await session({ type: 'server_vad' });
    await audio(h);
    await update({ type: 'server_vad', silence_duration_ms: 300 });
    await audio(h);
    await update({ type: 'semantic_vad', eagerness: 'high' });
    await audio(h);
    expect(recognizer.held).to.equal(1);
    expect(recognizer.taken).to.equal(1);
  });

  it('a session with manual turns reserves nothing, even with audio', async () => {
    const { h, recognizer } = await session(null);
    await audio(h);
    expect(recognizer.taken).to.equal(0);
  });
});
