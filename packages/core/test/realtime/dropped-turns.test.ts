import { expect } from 'chai';
import { DEFAULT_TRANSCRIPT_DEADLINE_MS } from '../../src/realtime/index.js';
import { EnergyVad, FakeStreamingRecognizer, flush, pcmBase64 } from '../fakes/index.js';
import { startTextSession, type Harness } from './support/session-harness.js';

const serverVad = {
  audio: {
    input: {
      transcription: { model: 'svc-stt-3.1' },
      turn_detection: { type: 'server_vad', silence_duration_ms: 200, prefix_padding_ms: 100 },
    },
  },
};

/** Silence, speech, silence: one server-VAD turn (speech_stopped comes with the last append). */
async function speakOneTurn(h: Harness): Promise<string> {
  await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 0) });
  await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, 24000, 5000) });
  await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 0) });
  await flush();
  return h.out.last('input_audio_buffer.speech_stopped')!.item_id as string;
}

describe('a turn is never dropped silently: no reply means an error event saying why', () => {
  it('a transcript that is not ready within the deadline (recognizer backlog): error server_overloaded, decoder freed, no reply', async () => {
    const recognizer = new FakeStreamingRecognizer('what time is it');
    recognizer.finishAs = 'hang';
    const h = await startTextSession({ audio: { voiceActivityDetector: new EnergyVad(), speechRecognizer: recognizer } }, serverVad);
    const itemId = await speakOneTurn(h);
    // The response is created at speech_stopped and waits for the words.
    expect(h.out.types()).to.include('response.created');
    expect(h.out.types()).to.not.include('error');
    h.clock.advance(DEFAULT_TRANSCRIPT_DEADLINE_MS - 1);
    await flush();
    expect(h.out.types()).to.not.include('error');
    h.clock.advance(1);
    await flush();
    const error = h.out.last('error')!.error as Record<string, unknown>;
    expect(error).to.deep.include({ type: 'server_error', code: 'server_overloaded' });
    expect(error.message).to.include(itemId).and.to.include(`${DEFAULT_TRANSCRIPT_DEADLINE_MS} ms`);
    // Its recognition is aborted (the decoder goes back to turns that can still be answered).
    expect(recognizer.streams[0]!.signal.aborted).to.equal(true);
    // No reply to words nobody heard: the response ends cancelled without asking the model.
    const done = h.out.last('response.done')!.response as { status: string; output: unknown[] };
    expect(done).to.deep.include({ status: 'cancelled', output: [] });
    expect(h.lm.requests).to.have.length(0);
    expect(h.out.types()).to.not.include('conversation.item.input_audio_transcription.completed');
  });

  it('a recognizer failure: error transcription_failed naming the item and the cause, no reply', async () => {
    const recognizer = new FakeStreamingRecognizer('what time is it');
    recognizer.finishAs = new Error('pocketsphinx helper exited (SIGKILL)');
    const h = await startTextSession({ audio: { voiceActivityDetector: new EnergyVad(), speechRecognizer: recognizer } }, serverVad);
    const itemId = await speakOneTurn(h);
    const error = h.out.last('error')!.error as Record<string, unknown>;
    expect(error).to.deep.include({ type: 'server_error', code: 'transcription_failed' });
    expect(error.message).to.include(itemId).and.to.include('pocketsphinx helper exited (SIGKILL)');
    expect(h.out.last('response.done')!.response).to.deep.include({ status: 'cancelled', output: [] });
    expect(h.lm.requests).to.have.length(0);
    await h.send({ type: 'conversation.item.retrieve', item_id: itemId });
    expect((h.out.last('conversation.item.retrieved')!.item as { content: unknown }).content).to.deep.equal([
      { type: 'input_audio', transcript: '' },
    ]);
  });

  it('the next turn is answered as usual once the recognizer keeps up again', async () => {
    const recognizer = new FakeStreamingRecognizer('what time is it');
    recognizer.finishAs = 'hang';
    const h = await startTextSession({ audio: { voiceActivityDetector: new EnergyVad(), speechRecognizer: recognizer } }, serverVad);
    await speakOneTurn(h);
    h.clock.advance(DEFAULT_TRANSCRIPT_DEADLINE_MS);
    await flush();
    recognizer.finishAs = 'text';
    h.out.reset();
    await speakOneTurn(h);
    expect(h.out.types()).to.not.include('error');
    expect(h.out.last('conversation.item.input_audio_transcription.completed')).to.deep.include({ transcript: 'what time is it' });
    expect(h.out.last('response.done')!.response).to.deep.include({ status: 'completed' });
    expect(h.lm.requests).to.have.length(1);
  });

  it('a transcript ready before the deadline is answered; a turn the client clears is not an error', async () => {
    const recognizer = new FakeStreamingRecognizer('what time is it');
    const h = await startTextSession({ audio: { voiceActivityDetector: new EnergyVad(), speechRecognizer: recognizer } }, serverVad);
    await speakOneTurn(h);
    h.clock.advance(DEFAULT_TRANSCRIPT_DEADLINE_MS * 2);
    await flush();
    expect(h.out.types()).to.not.include('error');
    recognizer.finishAs = 'hang';
    h.out.reset();
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, 24000, 5000) });
    await h.send({ type: 'input_audio_buffer.clear' });
    h.clock.advance(DEFAULT_TRANSCRIPT_DEADLINE_MS * 2);
    await flush();
    expect(h.out.types()).to.deep.equal(['input_audio_buffer.speech_started', 'input_audio_buffer.cleared']);
  });
});
