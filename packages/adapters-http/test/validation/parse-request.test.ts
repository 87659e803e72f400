import { expect } from 'chai';
import { z } from 'zod';
import { InvalidParameterError, InvalidRequestError, MissingParameterError, UnknownParameterError, type ServiceError } from '@svc/core';
import { parseRequest } from '../../src/validation/parse-request.js';

const schema = z.strictObject({
  input: z.string().max(5),
  format: z.enum(['mp3', 'wav']).optional(),
  speed: z.number().min(0.25).optional(),
  nested: z.strictObject({ seconds: z.number().int() }).optional(),
});

function refusal(value: unknown): ServiceError {
  try {
    parseRequest(schema, value);
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error('accepted');
}

/** The zod issue -> typed error translation every JSON route relies on (the spec's identifiers and param). */
describe('parseRequest: a schema problem becomes the spec error with its param', () => {
  it('returns the parsed value when it fits', () => {
    expect(parseRequest(schema, { input: 'hi', format: 'wav' })).to.deep.equal({ input: 'hi', format: 'wav' });
  });

  it('a body that is not an object is invalid_request_error', () => {
    for (const value of [null, [], 'text', 3]) expect(refusal(value)).to.be.instanceOf(InvalidRequestError);
  });

  it('an unknown field is unknown_parameter naming it, nested ones with their path', () => {
    const top = refusal({ input: 'hi', colour: 'red' });
    expect(top).to.be.instanceOf(UnknownParameterError);
    expect(top.param).to.equal('colour');
    const nested = refusal({ input: 'hi', nested: { seconds: 1, extra: true } });
    expect(nested).to.be.instanceOf(UnknownParameterError);
    expect(nested.param).to.equal('nested.extra');
  });

  it('a missing required field is missing_required_parameter; a wrong type is invalid_parameter', () => {
    const missing = refusal({});
    expect(missing).to.be.instanceOf(MissingParameterError);
    expect(missing.param).to.equal('input');
    const wrongType = refusal({ input: 42 });
    expect(wrongType).to.be.instanceOf(InvalidParameterError);
    expect(wrongType.message).to.equal("Invalid type for 'input': expected string.");
    expect(refusal({ input: 'a', nested: { seconds: 'x' } }).param).to.equal('nested.seconds');
  });

  it('a value outside an enum lists the allowed values; a broken bound says which', () => {
    const format = refusal({ input: 'a', format: 'ogg' });
    expect(format.message).to.equal(`Invalid value for 'format': expected one of "mp3", "wav".`);
    expect(format.param).to.equal('format');
    const speed = refusal({ input: 'a', speed: 0.1 });
    expect(speed).to.be.instanceOf(InvalidParameterError);
    expect(speed.param).to.equal('speed');
    expect(speed.message).to.equal("'speed' must be at least 0.25.");
    expect(refusal({ input: 'toolong' }).param).to.equal('input');
  });

  it('a broken bound reads like the service messages, not like zod', () => {
    const bounded = z.strictObject({
      limit: z.number().int().min(1).max(100).optional(),
      ratio: z.number().gt(0).lt(1).optional(),
      name: z.string().min(1).max(3).optional(),
      tags: z.array(z.string()).max(2).optional(),
    });
    const message = (value: unknown) => {
      try {
        parseRequest(bounded, value);
      } catch (err) {
        expect(err).to.be.instanceOf(InvalidParameterError);
        return (err as ServiceError).message;
      }
      throw new Error('accepted');
    };
    expect(message({ limit: 0 })).to.equal("'limit' must be at least 1.");
    expect(message({ limit: 101 })).to.equal("'limit' must be at most 100.");
    expect(message({ ratio: 0 })).to.equal("'ratio' must be greater than 0.");
    expect(message({ ratio: 1 })).to.equal("'ratio' must be less than 1.");
    expect(message({ name: '' })).to.equal("'name' must be at least 1 character long.");
    expect(message({ name: 'abcd' })).to.equal("'name' must be at most 3 characters long.");
    expect(message({ tags: ['a', 'b', 'c'] })).to.equal("'tags' must have at most 2 items.");
  });

  it('a value no branch of a union takes names the types it may be, or what is wrong inside it', () => {
    const voiced = z.strictObject({ voice: z.union([z.string(), z.strictObject({ id: z.string() })]).optional() });
    const error = (value: unknown) => {
      try {
        parseRequest(voiced, value);
      } catch (err) {
        return err as ServiceError;
      }
      throw new Error('accepted');
    };
    for (const wrong of [7, null, [[1]]]) {
      const refused = error({ voice: wrong });
      expect(refused, JSON.stringify(wrong)).to.be.instanceOf(InvalidParameterError);
      expect(refused.message).to.equal("Invalid type for 'voice': expected string or object.");
      expect(refused.param).to.equal('voice');
    }
    expect(error({ voice: {} }))
      .to.be.instanceOf(MissingParameterError)
      .and.include({ param: 'voice.id' });
    expect(error({ voice: { id: 3 } }).message).to.equal("Invalid type for 'voice.id': expected string.");
  });
});
