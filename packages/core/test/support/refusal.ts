import { expect } from 'chai';
import { ServiceError } from '../../src/shared/errors.js';

/** The ServiceError a use case refused with (the test fails when it succeeds, or throws anything else). */
export async function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError);
    return err as ServiceError;
  }
  throw new Error('expected a refusal');
}
