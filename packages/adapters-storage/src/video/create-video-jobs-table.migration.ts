import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreateVideoJobsTable1763900000000 implements MigrationInterface {
  name = 'CreateVideoJobsTable1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'video_jobs',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'api_key_id', type: 'varchar', length: '64' },
          { name: 'model', type: 'varchar', length: '32' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'progress', type: 'integer' },
          { name: 'size', type: 'varchar', length: '16' },
          { name: 'duration_ms', type: 'bigint' },
          { name: 'created_at', type: 'bigint' },
          { name: 'completed_at', type: 'bigint', isNullable: true },
          { name: 'expires_at', type: 'bigint', isNullable: true },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'attempts', type: 'integer' },
        ],
      }),
      true,
    );
    await queryRunner.createIndex(
      'video_jobs',
      new TableIndex({ name: 'idx_video_jobs_key_created', columnNames: ['api_key_id', 'created_at'] }),
    );
    await queryRunner.createIndex('video_jobs', new TableIndex({ name: 'idx_video_jobs_status', columnNames: ['status'] }));
    await queryRunner.createIndex('video_jobs', new TableIndex({ name: 'idx_video_jobs_expires', columnNames: ['expires_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('video_jobs');
  }
}
