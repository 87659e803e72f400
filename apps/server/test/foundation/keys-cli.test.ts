import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runKeysCli } from '../../src/cli/keys.js';
import { startTestServer } from '../helpers/test-server.js';
import { getJson } from '../helpers/http.js';
import { readThroughOnePagePipe } from '../helpers/slow-pipe.js';

const KEYS_CLI = fileURLToPath(new URL('../../src/cli/keys.js', import.meta.url));

describe('keys CLI (npm run keys)', function () {
  this.timeout(60_000);
  let dir: string;
  const saved = process.env.SVC_DATA_DIR;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-keys-'));
    process.env.SVC_DATA_DIR = dir;
  });
  after(() => {
    if (saved === undefined) delete process.env.SVC_DATA_DIR;
    else process.env.SVC_DATA_DIR = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => {
    const lines: string[] = [];
    const code = await runKeysCli(args, (l) => lines.push(l));
    return { code, out: lines.join('\n') };
  };

  it('says there are no keys, and how to make one, when the database has none', async () => {
    const listed = await cli('list');
    expect(listed.code).to.equal(0);
    expect(listed.out).to.equal('No API keys yet. Create one with: npm run keys -- create --name NAME');
    expect(JSON.parse((await cli('list', '--json')).out)).to.deep.equal([]);
  });

  it('creates, lists and revokes keys that the server then accepts or refuses', async () => {
    const created = await cli('create', '--name', 'ci-bot', '--json');
    expect(created.code).to.equal(0);
    const { id, secret } = JSON.parse(created.out);
    expect(secret).to.match(/^svc-/);

    const listed = await cli('list', '--json');
    const rows = JSON.parse(listed.out);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ id, name: 'ci-bot', revokedAt: null });
    expect(listed.out).not.to.contain(secret);

    const server = await startTestServer({ dataDir: dir });
    try {
      expect((await getJson(`${server.baseUrl}/v1/audio/presets`, secret)).status).to.equal(200);
      expect((await cli('revoke', '--id', id)).code).to.equal(0);
      expect((await getJson(`${server.baseUrl}/v1/audio/presets`, secret)).status).to.equal(401);
    } finally {
      await server.close();
    }
    expect((await cli('revoke', '--id', id)).code).to.equal(1);
  });

  it('a long listing reaches a slow reader whole (the exit waits for stdout to drain)', async () => {
    for (let i = 0; i < 60; i++) expect((await cli('create', '--name', `bulk-${i}`)).code).to.equal(0);
    const expected = JSON.parse((await cli('list', '--json')).out) as unknown[];
    const out = readThroughOnePagePipe([process.execPath, KEYS_CLI, 'list', '--json'], { ...process.env, SVC_DATA_DIR: dir });
    expect(out.length).to.be.greaterThan(4096);
    expect(JSON.parse(out)).to.deep.equal(expected);
  });

  it('mints a key while a module it does not build is configured to need one (SVC_SIP_PORT before SVC_SIP_API_KEY_ID)', async () => {
    process.env.SVC_SIP_PORT = '0';
    try {
      const created = await cli('create', '--name', 'phone-line', '--json');
      expect(created.code, created.out).to.equal(0);
      expect(JSON.parse(created.out).id).to.match(/^key_/);
    } finally {
      delete process.env.SVC_SIP_PORT;
    }
  });

  it('prints usage for unknown commands', async () => {
    const r = await cli('frobnicate');
    expect(r.code).to.equal(2);
    expect(r.out).to.contain('Usage');
  });
});
