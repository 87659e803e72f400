import { expect } from 'chai';
import {
  ConflictingVoiceError,
  EngineError,
  InputTooLongError,
  InvalidParameterError,
  VoiceNotFoundError,
} from '../../src/shared/errors.js';
import { nestedSpeechErrors } from '../../src/video/video-request.js';

describe('ServiceError.nestedIn: errors of a nested request name the dotted param', () => {
  it('prefixes the param and the quoted field in the message', () => {
    const err = new InputTooLongError(5000, 5001).nestedIn('input_tts');
    expect(err.param).to.equal('input_tts.input');
    expect(err.message).to.equal("'input_tts.input' is 5001 characters long; the maximum is 5000.");
    expect(new VoiceNotFoundError('voice_x').nestedIn('input_tts').param).to.equal('input_tts.voice');
  });

  it('renames the other fields the message quotes too, never a field it does not name', () => {
    const conflict = new ConflictingVoiceError().nestedIn('input_tts');
    expect(conflict.param).to.equal('input_tts.voice');
    expect(conflict.message).to.equal(
      "'input_tts.voice' and 'input_tts.ref_audio'/'input_tts.ref_text' are mutually exclusive; send one or the other.",
    );
    expect(new ConflictingVoiceError().message, 'unnested, unchanged').to.equal(
      "'voice' and 'ref_audio'/'ref_text' are mutually exclusive; send one or the other.",
    );
    const plain = new InvalidParameterError("'speed' is 'ref_audio'-like.", 'speed').nestedIn('input_tts');
    expect(plain.message).to.equal("'input_tts.speed' is 'ref_audio'-like.");
  });

  it('names the parent when no field was named, never nests twice, leaves server faults alone', () => {
    expect(new InvalidParameterError('bad').nestedIn('input_tts').param).to.equal('input_tts');
    expect(new InvalidParameterError('bad', 'input_tts.speed').nestedIn('input_tts').param).to.equal('input_tts.speed');
    expect(new InvalidParameterError('bad', 'speed').nestedIn('input_tts').nestedIn('input_tts').param).to.equal('input_tts.speed');
    expect(new EngineError('boom').nestedIn('input_tts').param).to.equal(null);
  });

  it('nestedSpeechErrors nests what a synchronous or an asynchronous run throws', async () => {
    expect(() =>
      nestedSpeechErrors(() => {
        throw new VoiceNotFoundError('v');
      }),
    )
      .to.throw(VoiceNotFoundError)
      .with.property('param', 'input_tts.voice');
    const rejected = await nestedSpeechErrors(() => Promise.reject(new InvalidParameterError('x', 'ref_audio'))).catch((e: unknown) => e);
    expect(rejected).to.be.instanceOf(InvalidParameterError).with.property('param', 'input_tts.ref_audio');
    expect(nestedSpeechErrors(() => 7)).to.equal(7);
  });
});
