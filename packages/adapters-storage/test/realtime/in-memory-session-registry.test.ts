import { InMemorySessionRegistry } from '@svc/core';
import { sessionRegistryContract } from '../session-registry-contract.js';

describe('InMemorySessionRegistry (one process: the default)', () => {
  sessionRegistryContract(async (caps) => {
    const registry = new InMemorySessionRegistry(caps);
    return [registry, registry];
  });
});
