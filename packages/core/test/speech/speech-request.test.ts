import { expect } from 'chai';
import { validateSpeechRequest, MAX_INPUT_CHARS } from '../../src/speech/speech-request.js';
import { ServiceError } from '../../src/shared/errors.js';

function identifierOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError);
    return (err as ServiceError).identifier;
  }
  throw new Error('expected an error');
}

describe('validateSpeechRequest', () => {
  it('applies every default', () => {
    const r = validateSpeechRequest({ input: 'Hello' });
    expect(r).to.deep.equal({
      input: 'Hello',
      model: 'svc-audio-v3-tts',
      voice: 'default',
      voiceExplicit: false,
      responseFormat: 'mp3',
      stream: false,
      refAudio: null,
      refText: null,
      enableTn: true,
      tnLanguage: null,
      timestamps: false,
      speed: 1,
      instructions: null,
      streamFormat: 'audio',
    });
  });

  it('accepts exactly 5000 characters and rejects 5001 with input_too_long', () => {
    expect(validateSpeechRequest({ input: 'a'.repeat(MAX_INPUT_CHARS) }).input).to.have.length(5000);
    expect(identifierOf(() => validateSpeechRequest({ input: 'a'.repeat(MAX_INPUT_CHARS + 1) }))).to.equal('input_too_long');
  });

  it('counts characters, not UTF-16 units (5000 emoji are allowed)', () => {
    expect(() => validateSpeechRequest({ input: '😀'.repeat(5000) })).not.to.throw();
    expect(identifierOf(() => validateSpeechRequest({ input: '😀'.repeat(5001) }))).to.equal('input_too_long');
  });

  it('rejects empty and whitespace-only input with input_empty', () => {
    expect(identifierOf(() => validateSpeechRequest({ input: '' }))).to.equal('input_empty');
    expect(identifierOf(() => validateSpeechRequest({ input: '   \n' }))).to.equal('input_empty');
    // Whitespace is characters: the message says what is missing, something to speak.
    expect(() => validateSpeechRequest({ input: '   \n' })).to.throw("'input' holds only whitespace: there is nothing to speak.");
  });

  it("only knows the one model, unless OpenAI's names are accepted as aliases", () => {
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', model: 'tts-1' }))).to.equal('invalid_parameter');
    for (const model of ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'gpt-4o-mini-tts-2025-12-15']) {
      expect(validateSpeechRequest({ input: 'x', model }, { openAiModelAliases: true }).model).to.equal('svc-audio-v3-tts');
    }
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', model: 'whisper-1' }, { openAiModelAliases: true }))).to.equal(
      'invalid_parameter',
    );
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', model: 'tts-1-2025' }, { openAiModelAliases: true }))).to.equal(
      'invalid_parameter',
    );
  });

  it("stream_format: 'audio' is today's behaviour; 'sse' streams events in any format, but not with stream: false", () => {
    expect(validateSpeechRequest({ input: 'x', stream_format: 'audio' })).to.include({ streamFormat: 'audio', stream: false });
    expect(validateSpeechRequest({ input: 'x', stream_format: 'sse' })).to.include({
      streamFormat: 'sse',
      stream: true,
      responseFormat: 'mp3',
    });
    expect(validateSpeechRequest({ input: 'x', stream_format: 'sse', stream: true, response_format: 'wav' })).to.include({
      streamFormat: 'sse',
      stream: true,
    });
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', stream_format: 'sse', stream: false }))).to.equal('invalid_parameter');
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', stream_format: 'events' }))).to.equal('invalid_parameter');
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', stream_format: 'sse' }, { nested: true }))).to.equal('invalid_parameter');
    // Raw streamed bytes are still pcm only, and events stream, so no speed and no timestamps.
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', stream_format: 'audio', stream: true }))).to.equal('stream_requires_pcm');
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', stream_format: 'sse', speed: 1.5 }))).to.equal('invalid_parameter');
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', stream_format: 'sse', timestamps: true }))).to.equal('invalid_parameter');
  });

  it('takes instructions up to 4096 characters, and a custom voice as {id}', () => {
    expect(validateSpeechRequest({ input: 'x', instructions: 'Speak slowly.' }).instructions).to.equal('Speak slowly.');
    expect(validateSpeechRequest({ input: 'x', instructions: null }).instructions).to.equal(null);
    expect(validateSpeechRequest({ input: 'x', instructions: 'é'.repeat(4096) }).instructions).to.have.length(4096);
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', instructions: 'a'.repeat(4097) }))).to.equal('invalid_parameter');
    expect(validateSpeechRequest({ input: 'x', voice: { id: 'voice_abc' } })).to.include({ voice: 'voice_abc', voiceExplicit: true });
  });

  it('requires pcm for streaming', () => {
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', stream: true }))).to.equal('stream_requires_pcm');
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', stream: true, response_format: 'wav' }))).to.equal('stream_requires_pcm');
    expect(validateSpeechRequest({ input: 'x', stream: true, response_format: 'pcm' }).stream).to.equal(true);
  });

  it('rejects stream inside a nested (video) request', () => {
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', stream: true, response_format: 'pcm' }, { nested: true }))).to.equal(
      'invalid_parameter',
    );
  });

  it('makes an explicit voice and ref_audio/ref_text mutually exclusive', () => {
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', voice: 'default', ref_audio: 'AAAA' }))).to.equal('voice_conflict');
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', voice: 'slt', ref_text: 'hi' }))).to.equal('voice_conflict');
    const r = validateSpeechRequest({ input: 'x', ref_audio: 'AAAA', ref_text: 'hi' });
    expect(r.refAudio).to.equal('AAAA');
    expect(r.voice).to.equal('default');
    expect(r.voiceExplicit).to.equal(false);
  });

  it('treats null ref fields as absent', () => {
    expect(() => validateSpeechRequest({ input: 'x', voice: 'slt', ref_audio: null, ref_text: null })).not.to.throw();
  });

  it('rejects ref_text without ref_audio', () => {
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', ref_text: 'hello' }))).to.equal('invalid_parameter');
  });

  it('bounds speed and refuses speed or timestamps with stream', () => {
    expect(validateSpeechRequest({ input: 'x', speed: 2 }).speed).to.equal(2);
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', speed: 5 }))).to.equal('invalid_parameter');
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', speed: 0.1 }))).to.equal('invalid_parameter');
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', stream: true, response_format: 'pcm', speed: 1.5 }))).to.equal(
      'invalid_parameter',
    );
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', stream: true, response_format: 'pcm', timestamps: true }))).to.equal(
      'invalid_parameter',
    );
  });

  it('rejects unknown response formats', () => {
    expect(identifierOf(() => validateSpeechRequest({ input: 'x', response_format: 'ogg' }))).to.equal('invalid_parameter');
  });
});
