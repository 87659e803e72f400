import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreateRealtimeClientSecretsTable1763800000000 implements MigrationInterface {
  name = 'CreateRealtimeClientSecretsTable1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'realtime_client_secrets',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'secret_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'api_key_id', type: 'varchar', length: '64' },
          { name: 'api_key_name', type: 'varchar', length: '200' },
          { name: 'created_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
        ],
      }),
      true,
    );
    await queryRunner.createIndex(
      'realtime_client_secrets',
      new TableIndex({ name: 'IDX_realtime_client_secrets_expires_at', columnNames: ['expires_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('realtime_client_secrets');
  }
}
