import { expect } from 'chai';
import { acceptedModelNames, acceptsModel, isOpenAiModelAlias } from '../../src/shared/model-aliases.js';

describe("OpenAI's model names as aliases", () => {
  it('knows the speech, transcription and realtime names and their dated snapshots, each for its own kind', () => {
    for (const name of ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'gpt-4o-mini-tts-2025-03-20', 'tts-1-1106', 'tts-1-hd-1106'])
      expect(isOpenAiModelAlias('speech', name), name).to.equal(true);
    for (const name of ['whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe-2025-12-15'])
      expect(isOpenAiModelAlias('transcription', name), name).to.equal(true);
    // gpt-realtime-2.1 is @openai/agents-realtime 0.20's default; the openai SDK 6.49 lists all of these.
    for (const name of [
      'gpt-realtime',
      'gpt-realtime-2025-08-28',
      'gpt-realtime-mini',
      'gpt-realtime-1.5',
      'gpt-realtime-2',
      'gpt-realtime-2.1',
      'gpt-realtime-2.1-mini',
      'gpt-4o-realtime-preview-2024-12-17',
    ])
      expect(isOpenAiModelAlias('realtime', name), name).to.equal(true);
    for (const name of ['tts-2', 'tts-1-x', 'gpt-realtime-2025', 'whisper-1'])
      expect(isOpenAiModelAlias('speech', name), name).to.equal(false);
  });

  it("accepts the service's own id always and OpenAI's names only when enabled", () => {
    expect(acceptsModel('realtime', 'svc-realtime', 'svc-realtime', false)).to.equal(true);
    expect(acceptsModel('realtime', 'gpt-realtime', 'svc-realtime', false)).to.equal(false);
    expect(acceptsModel('realtime', 'gpt-realtime', 'svc-realtime', true)).to.equal(true);
    expect(acceptsModel('realtime', 'tts-1', 'svc-realtime', true)).to.equal(false);
  });

  it("names what is accepted in the refusal: OpenAI's names only when they are", () => {
    expect(acceptedModelNames('speech', 'svc-audio-v3-tts', false)).to.equal("'svc-audio-v3-tts'");
    expect(acceptedModelNames('speech', 'svc-audio-v3-tts', true)).to.equal(
      "'svc-audio-v3-tts' or OpenAI's 'tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'tts-1-1106', 'tts-1-hd-1106' (and their dated snapshots)",
    );
  });
});
