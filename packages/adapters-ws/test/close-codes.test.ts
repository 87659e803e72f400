import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SESSION_ENDINGS } from '@svc/core';
import { CLOSE_CODES } from '../src/index.js';

const SRC = resolve(fileURLToPath(import.meta.url), '../../../src');

describe('WebSocket close codes: one table (packages/adapters-ws/src/close-codes.ts)', () => {
  it('has a code for every way the core ends a session', () => {
    for (const ending of Object.values(SESSION_ENDINGS)) expect(CLOSE_CODES, ending).to.have.property(ending).that.is.a('number');
  });

  it('uses the spec’s codes', () => {
    expect(CLOSE_CODES).to.include({
      invalid_configuration: 1000,
      idle_timeout: 1000,
      max_duration: 1000,
      protocol_violation: 1008,
      at_capacity: 1013,
      invalid_credentials: 3000,
      duplicate_session: 4009,
      quota_refused: 4429,
      server_shutdown: 1001,
      internal_error: 1011,
    });
  });

  it('no other file of the adapter closes a socket with a numeric literal', () => {
    const offenders = readdirSync(SRC)
      .filter((f) => f.endsWith('.js') && f !== 'close-codes.js')
      .flatMap((f) =>
        readFileSync(resolve(SRC, f), 'utf8')
          .split('\n')
          .filter((l) => /\.close\(\s*\d/.test(l))
          .map((l) => `${f}: ${l.trim()}`),
      );
    expect(offenders).to.deep.equal([]);
  });
});
