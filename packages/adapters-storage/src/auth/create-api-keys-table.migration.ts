import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreateApiKeysTable1763700000000 implements MigrationInterface {
  name = 'CreateApiKeysTable1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'api_keys',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'secret_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'prefix', type: 'varchar', length: '32' },
          { name: 'created_at', type: 'bigint' },
          { name: 'revoked_at', type: 'bigint', isNullable: true },
        ],
      }),
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('api_keys');
  }
}
