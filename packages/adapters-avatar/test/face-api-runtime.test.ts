// @test-tier slow: runs face detection on photos
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const entry = fileURLToPath(new URL('../src/index.js', import.meta.url));

describe('face-api runtime (tfjs WASM backend)', function () {
  this.timeout(60_000);

  it('leaves no Emscripten process handlers behind: a stray rejection after loading is handled as Node handles it', async () => {
    // A fresh process, so the runtime really loads here (it is memoised per process).
    const script = `
      const m = await import(${JSON.stringify(entry)});
      const count = () => process.listeners('uncaughtException').length + process.listeners('unhandledRejection').length;
      const before = count();
      await m.loadFaceApi();
      const after = count();
      let seen = null;
      process.on('unhandledRejection', (reason) => { seen = String(reason); });
      Promise.reject(new Error('stray'));
      await new Promise((r) => setTimeout(r, 50));
      console.log(JSON.stringify({ before, after, seen }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as { before: number; after: number; seen: string | null };
    expect(result.after, 'process listeners added by loading the runtime').to.equal(result.before);
    expect(result.seen).to.equal('Error: stray');
  });
});
