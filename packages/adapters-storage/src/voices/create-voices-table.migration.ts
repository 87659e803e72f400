import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreateVoicesTable1763700000300 implements MigrationInterface {
  name = 'CreateVoicesTable1763700000300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'voices',
        columns: [
          { name: 'api_key_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'ref_text', type: 'text' },
          { name: 'description', type: 'text' },
          { name: 'created_at', type: 'bigint' },
          { name: 'audio_key', type: 'varchar', length: '255' },
          { name: 'audio_format', type: 'varchar', length: '16' },
          { name: 'audio_bytes', type: 'bigint' },
          { name: 'duration_ms', type: 'bigint' },
          { name: 'profile', type: 'text' },
        ],
      }),
      true,
    );
    await queryRunner.createIndex('voices', new TableIndex({ name: 'idx_voices_key_created', columnNames: ['api_key_id', 'created_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('voices', 'idx_voices_key_created');
    await queryRunner.dropTable('voices');
  }
}
