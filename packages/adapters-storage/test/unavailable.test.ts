import { expect } from 'chai';
import { MediaFetchFailedError, ServiceUnavailableError } from '@svc/core';
import { dependencyUnavailable } from '../src/unavailable.js';

describe('dependencyUnavailable: which failures mean "a dependency does not answer" (503)', () => {
  const named = (message: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), extra);

  it('recognizes the pg driver and TypeORM when the database is down or restarting', () => {
    for (const err of [
      named('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' }),
      named('Connection terminated unexpectedly'),
      named('timeout exceeded when trying to connect'),
      named('terminating connection due to administrator command', { code: '57P01' }),
      named('the database system is starting up', { code: '57P03' }),
      named('Query failed', { driverError: named('read ECONNRESET', { code: 'ECONNRESET' }) }),
    ]) {
      const out = dependencyUnavailable(err);
      expect(out, err.message).to.be.instanceOf(ServiceUnavailableError);
      expect(out!.dependency).to.equal('database');
    }
  });

  it('recognizes ioredis failing fast while Redis is unreachable', () => {
    for (const err of [
      named("Stream isn't writeable and enableOfflineQueue options is false"),
      named('Connection is closed.'),
      Object.assign(new Error('Reached the max retries per request limit (which is 1).'), { name: 'MaxRetriesPerRequestError' }),
    ]) {
      expect(dependencyUnavailable(err)?.dependency, err.message).to.equal('redis');
    }
  });

  it("never reclassifies an error the service already typed where it arose (a media host's ECONNREFUSED is the caller's 400, issue 33)", () => {
    const refused = new MediaFetchFailedError("'ref_audio': the media host refused the connection (ECONNREFUSED).", 'ref_audio');
    expect(dependencyUnavailable(refused)).to.equal(null);
    expect(dependencyUnavailable(Object.assign(new Error('wrapped'), { cause: refused }))).to.equal(null);
  });

  it('leaves everything else alone (a bug or a bad query stays a 500)', () => {
    for (const err of [
      named('duplicate key value violates unique constraint "voices_pkey"', { code: '23505' }),
      named('syntax error at or near "SELEC"', { code: '42601' }),
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      'a string',
      null,
    ]) {
      expect(dependencyUnavailable(err), String(err)).to.equal(null);
    }
  });

  it('passes a ServiceUnavailableError through unchanged', () => {
    const e = new ServiceUnavailableError('redis');
    expect(dependencyUnavailable(e)).to.equal(e);
  });
});
