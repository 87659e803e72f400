export { VoiceEntity } from './voice.entity.js';
export { TypeOrmVoiceRepository } from './typeorm-voice-repository.js';
export { CreateVoicesTable1763700000300 } from './create-voices-table.migration.js';
