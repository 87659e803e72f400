import { expect } from 'chai';
import * as core from '@svc/core';
import { ServiceError, VoiceNotFoundError, RateLimitExceededError, InternalError } from '@svc/core';
import { HTTP_STATUS, httpHeadersOf, httpStatusOf } from '../../src/errors/http-status.js';
import { fromHttpLibraryError } from '../../src/errors/rest-error.js';

/** Every ServiceError class the core exports. */
const coreErrorClasses = Object.entries(core).filter(
  ([, value]) => typeof value === 'function' && value.prototype instanceof ServiceError,
) as Array<[string, core.ServiceErrorClass]>;

describe('HTTP statuses: one table (packages/adapters-http/src/errors/http-status.ts)', () => {
  it('has a row for every ServiceError class the core exports', () => {
    expect(coreErrorClasses.length).to.be.greaterThan(30);
    const missing = coreErrorClasses.filter(([, cls]) => !HTTP_STATUS.has(cls)).map(([name]) => name);
    expect(missing, 'add `[ClassName, status]` to HTTP_STATUS for each').to.deep.equal([]);
  });

  it('every status is an HTTP error status', () => {
    for (const [cls, status] of HTTP_STATUS) expect(status, cls.name).to.be.within(400, 599);
  });

  it('maps instances by class; a subclass of a listed class inherits its row; the rest are 500', () => {
    expect(httpStatusOf(new VoiceNotFoundError('voice_x'))).to.equal(404);
    expect(httpStatusOf(new InternalError())).to.equal(500);
    class UnlistedNotFound extends VoiceNotFoundError {}
    expect(httpStatusOf(new UnlistedNotFound('v'))).to.equal(404);
    class Unlisted extends ServiceError {
      readonly identifier = 'unlisted';
    }
    expect(httpStatusOf(new Unlisted('x'))).to.equal(500);
  });

  it('a rate limit carries Retry-After; errors from Koa keep their library status', () => {
    expect(httpHeadersOf(new RateLimitExceededError(3))).to.deep.equal({ 'Retry-After': '3' });
    expect(httpHeadersOf(new VoiceNotFoundError('v'))).to.deep.equal({});
    const err = fromHttpLibraryError(Object.assign(new Error('too big'), { status: 413, expose: true }));
    expect([httpStatusOf(err), err.identifier]).to.deep.equal([413, 'payload_too_large']);
  });
});
