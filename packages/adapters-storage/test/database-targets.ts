import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../src/data-source.js';

export interface DatabaseTarget {
  name: string;
  open(): Promise<{ dataSource: DataSource; cleanup(): Promise<void> }>;
}

/**
 * The databases repository tests run against: always a real SQLite file; Postgres too when
 * SVC_TEST_POSTGRES_URL is set (.ci/run starts a local server and sets it).
 */
export function databaseTargets(): DatabaseTarget[] {
  const targets: DatabaseTarget[] = [
    {
      name: 'sqlite file',
      async open() {
        const dir = mkdtempSync(join(tmpdir(), 'svc-db-'));
        const dataSource = await openDatabase({ url: 'sqlite:test.sqlite', dataDir: dir });
        return {
          dataSource,
          async cleanup() {
            await dataSource.destroy();
            rmSync(dir, { recursive: true, force: true });
          },
        };
      },
    },
  ];
  const pg = process.env.SVC_TEST_POSTGRES_URL;
  if (pg) {
    targets.push({
      name: 'postgres',
      async open() {
        const dataSource = await openDatabase({ url: pg, dataDir: tmpdir() });
        return {
          dataSource,
          async cleanup() {
            // Leave an empty schema for the next suite: drop every table the migrations made.
            await dataSource.dropDatabase();
            await dataSource.destroy();
          },
        };
      },
    });
  }
  return targets;
}
