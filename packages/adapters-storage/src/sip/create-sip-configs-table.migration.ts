import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreateSipConfigsTable1764400000000 implements MigrationInterface {
  name = 'CreateSipConfigsTable1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'sip_configs',
        columns: [
          { name: 'api_key_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'username', type: 'varchar', length: '64', isUnique: true },
          { name: 'ha1', type: 'varchar', length: '32' },
          { name: 'webhook_url', type: 'varchar', length: '2048', isNullable: true },
          { name: 'webhook_secret_sealed', type: 'varchar', length: '512', isNullable: true },
          { name: 'session_json', type: 'text', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('sip_configs');
  }
}
