import { expect } from 'chai';
import { judgeTurn, semanticEndWaitMs, UNCLEAR_WAIT_MS, UNFINISHED_WAIT_MS } from '../../src/realtime/index.js';
import { EnergyVad, FakeStreamingRecognizer, flush, pcmBase64 } from '../fakes/index.js';
import { startTextSession } from './support/session-harness.js';

describe('semantic_vad: the words decide when a turn ends', () => {
  it('judges a turn from its partial transcript', () => {
    for (const t of ['i would like a coffee and', 'put it on the', 'um', 'my number is four five', 'it costs twenty', 'because']) {
      expect(judgeTurn(t), t).to.equal('unfinished');
    }
    for (const t of ['what time is it', 'i would like a coffee', 'turn the lights off']) expect(judgeTurn(t), t).to.equal('finished');
    for (const t of ['', 'hello', 'yes please']) expect(judgeTurn(t), t).to.equal('unclear');
  });

  it('scales the waits with eagerness', () => {
    expect(semanticEndWaitMs('put it on the', 'medium')).to.equal(UNFINISHED_WAIT_MS);
    expect(semanticEndWaitMs('put it on the', 'low')).to.equal(UNFINISHED_WAIT_MS * 2);
    expect(semanticEndWaitMs('put it on the', 'high')).to.equal(UNFINISHED_WAIT_MS / 2);
    expect(semanticEndWaitMs('hello', 'auto')).to.equal(UNCLEAR_WAIT_MS);
    expect(semanticEndWaitMs('what time is it', 'low')).to.equal(0);
  });

  async function semanticSession() {
    const recognizer = new FakeStreamingRecognizer('i would like a coffee and a bagel');
    const h = await startTextSession(
      { audio: { voiceActivityDetector: new EnergyVad(), speechRecognizer: recognizer } },
      { audio: { input: { turn_detection: { type: 'semantic_vad', silence_duration_ms: 200 } } } },
    );
    return { h, recognizer };
  }

  it('a pause after an unfinished phrase does not end the turn; speech resuming continues it as one turn', async () => {
    const { h, recognizer } = await semanticSession();
    recognizer.partialText = 'i would like a coffee and';
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(500, 24000, 5000) });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, 24000, 0) });
    expect(h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
    h.clock.advance(1000);
    await flush();
    expect(h.out.types()).to.deep.equal(['input_audio_buffer.speech_started']);
    // The user goes on: still one turn (no second speech_started).
    recognizer.partialText = 'i would like a coffee and a bagel';
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(500, 24000, 5000) });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, 24000, 0) });
    await flush();
    const types = h.out.types();
    expect(types.filter((t) => t === 'input_audio_buffer.speech_started')).to.have.length(1);
    expect(types).to.include('input_audio_buffer.speech_stopped');
    expect(recognizer.streams).to.have.length(1);
  });

  it('an unfinished phrase followed by a long silence ends after the semantic wait', async () => {
    const { h, recognizer } = await semanticSession();
    recognizer.partialText = 'put it on the';
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(500, 24000, 5000) });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, 24000, 0) });
    h.clock.advance(UNFINISHED_WAIT_MS - 10);
    await flush();
    expect(h.out.types()).not.to.include('input_audio_buffer.speech_stopped');
    h.clock.advance(20);
    await flush();
    expect(h.out.types()).to.include('input_audio_buffer.speech_stopped');
    expect(h.out.types()).to.include('input_audio_buffer.committed');
  });

  it('a finished sentence ends the turn after silence_duration_ms alone', async () => {
    const { h, recognizer } = await semanticSession();
    recognizer.partialText = 'what time is it';
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(500, 24000, 5000) });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, 24000, 0) });
    await flush();
    expect(h.out.types()).to.include('input_audio_buffer.speech_stopped');
  });

  it('every detected speech restarts the 5-minute idle timer (Clock port)', async () => {
    const { h } = await semanticSession();
    h.clock.advance(4 * 60_000);
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(500, 24000, 5000) });
    h.clock.advance(4 * 60_000);
    await flush();
    expect(h.out.types()).not.to.include('session.idle_timeout');
    expect(h.out.closed).to.equal(null);
    h.clock.advance(60_000 + 1000);
    await flush();
    expect(h.out.types()).to.include('session.idle_timeout');
  });
});
