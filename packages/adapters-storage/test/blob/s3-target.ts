import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
/** s3rver's own command (an npm devDependency): a real S3-compatible HTTP server, storing objects on disk. */
export const S3RVER_BIN = join(dirname(require.resolve('s3rver/package.json')), 'bin', 's3rver.js');
/** s3rver's fixed credentials. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Runs s3rver as its own process on a free loopback port with one bucket; stop() ends it and removes its files. */
export async function startS3rver(bucket = 'svc-test'): Promise<{ endpoint: string; bucket: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-s3rver-'));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [S3RVER_BIN, '-d', dir, '-a', '127.0.0.1', '-p', String(port), '--silent', '--no-vhost-buckets', '--configure-bucket', bucket],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) break;
    const ok = await fetch(`${endpoint}/${bucket}`).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) return { endpoint, bucket, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`s3rver did not start: ${stderr}`);
}
