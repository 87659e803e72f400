import { expect } from 'chai';
import type { ReplySpeaker, ReplySpeechRequest } from '../../src/realtime/index.js';
import { EnergyVad, FakeStreamingRecognizer, flush, pcmBase64 } from '../fakes/index.js';
import { startTextSession } from './support/session-harness.js';

const RATE = 24000;

/** A speaker that counts how often it was told a reply is likely soon. */
class WarmableSpeaker implements ReplySpeaker {
  warmUps = 0;
  warmUp(): void {
    this.warmUps++;
  }
  async *speak(request: ReplySpeechRequest): AsyncIterable<Int16Array> {
    yield new Int16Array(request.text.length * 5).fill(1000);
  }
}

async function warmUpsAfterSpeech(outputModalities: string[]): Promise<{ beforeSpeech: number; afterSpeech: number }> {
  const speaker = new WarmableSpeaker();
  const h = await startTextSession(
    {
      audio: {
        voiceActivityDetector: new EnergyVad(),
        speechRecognizer: new FakeStreamingRecognizer('hello there'),
        replySpeaker: speaker,
      },
    },
    {
      output_modalities: outputModalities,
      audio: { input: { turn_detection: { type: 'server_vad' } }, output: { format: { type: 'audio/pcm', rate: RATE } } },
    },
  );
  await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(200, RATE, 0) });
  await flush();
  const beforeSpeech = speaker.warmUps;
  await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, RATE, 5000) });
  await flush();
  expect(h.out.types()).to.include('input_audio_buffer.speech_started');
  return { beforeSpeech, afterSpeech: speaker.warmUps };
}

describe('the reply speaker is told when a spoken reply is likely soon (ReplySpeaker.warmUp)', () => {
  it('when the user starts speaking in a session that speaks its replies, not before', async () => {
    expect(await warmUpsAfterSpeech(['audio'])).to.deep.equal({ beforeSpeech: 0, afterSpeech: 1 });
  });

  it('not in a session whose replies are text', async () => {
    expect(await warmUpsAfterSpeech(['text'])).to.deep.equal({ beforeSpeech: 0, afterSpeech: 0 });
  });
});
