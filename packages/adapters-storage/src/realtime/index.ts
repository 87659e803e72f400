export { ClientSecretEntity } from './client-secret.entity.js';
export { CreateRealtimeClientSecretsTable1763800000000 } from './create-client-secrets-table.migration.js';
export { TypeOrmClientSecretRepository } from './typeorm-client-secret-repository.js';
export { InMemoryClientSecretRepository } from './in-memory-client-secret-repository.js';
export { InMemoryQuotaGuard, parseQuotaBudgets, type QuotaBudgets } from './in-memory-quota-guard.js';
