export { SipConfigEntity } from './sip-config.entity.js';
export { CreateSipConfigsTable1764400000000 } from './create-sip-configs-table.migration.js';
export { TypeOrmSipConfigRepository } from './typeorm-sip-config-repository.js';
export { SecretBox, sealerMadeOnFirstUse, type SecretSealer } from './secret-box.js';
