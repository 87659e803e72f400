export { ApiKeyEntity } from './api-key.entity.js';
export { TypeOrmApiKeyRepository } from './typeorm-api-key-repository.js';
export { CreateApiKeysTable1763700000000 } from './create-api-keys-table.migration.js';
