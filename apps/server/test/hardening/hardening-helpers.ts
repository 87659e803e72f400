import { readdirSync } from 'node:fs';
import { expect } from 'chai';

/** Asserts the REST error shape `{error:{message,type,code,param}}` and, when given, the identifier. */
export function expectRestError(body: any, type?: string): void {
  expect(body, JSON.stringify(body)).to.be.an('object');
  expect(Object.keys(body)).to.deep.equal(['error']);
  expect(Object.keys(body.error).sort()).to.deep.equal(['code', 'message', 'param', 'type']);
  expect(body.error.message).to.be.a('string').and.not.equal('');
  expect(body.error.type).to.be.a('string');
  expect(body.error.code).to.equal(body.error.type);
  if (type) expect(body.error.type, body.error.message).to.equal(type);
}

/**
 * Records uncaught exceptions instead of letting them end the test process, so a defect that would
 * kill the server fails one test rather than the whole run.
 */
export function trapUncaught(): { errors: unknown[]; release(): void } {
  const errors: unknown[] = [];
  const onError = (err: unknown) => errors.push(err);
  process.on('uncaughtException', onError);
  return { errors, release: () => process.off('uncaughtException', onError) };
}

/** Open file descriptors of this process (Linux). */
export function openDescriptorCount(): number {
  return readdirSync('/proc/self/fd').length;
}
