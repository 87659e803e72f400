import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, CONFIG_KEYS } from '../../src/config.js';
import { SERVER_MODULES } from '../../src/composition/modules.js';

const MAIN = resolve(fileURLToPath(import.meta.url), '../../../src/main.js');

/** All configuration is parsed once, up front: a bad value stops the start before anything opens. */
describe('configuration is validated once, before anything opens', function () {
  this.timeout(30_000);

  for (const [name, value] of [
    ['SVC_REALTIME_MAX_SESSIONS', '0'],
    ['SVC_REALTIME_QUOTA', 'key_a=lots'],
    ['SVC_TTS_ENGINES', 'flite,festival'],
    ['SVC_MEDIA_MAX_REDIRECTS', 'many'],
    ['SVC_VAD_ENGINE', 'webrtc'],
    ['SVC_PORT', '70000'],
    // URLs are checked at start, not when first used.
    ['SVC_LLM_BASE_URL', 'localhost:8080/v1'],
    ['SVC_REDIS_URL', 'http://127.0.0.1:6379'],
    ['SVC_DATABASE_URL', 'mysql://db/svc'],
    ['SVC_S3_ENDPOINT', '127.0.0.1:9000'],
  ] as const) {
    it(`a bad ${name} stops main.js with a message naming it; no database file is created`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-badcfg-'));
      try {
        const run = spawnSync(process.execPath, [MAIN], {
          env: { ...process.env, SVC_PORT: '0', SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'warn', [name]: value },
          encoding: 'utf8',
          timeout: 20_000,
        });
        expect(run.status, run.stderr).to.equal(1);
        expect(run.stderr).to.match(new RegExp(`svc failed to start: Invalid configuration ${name}\\b`));
        expect(readdirSync(dir), 'nothing written to the data directory').to.deep.equal([]);
        expect(existsSync(join(dir, 'svc.sqlite'))).to.equal(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('every module declares its settings once: no two modules share a name, every name is SVC_*', () => {
    expect(new Set(CONFIG_KEYS).size).to.equal(CONFIG_KEYS.length);
    for (const key of CONFIG_KEYS) expect(key).to.match(/^SVC_[A-Z0-9_]+$/);
    expect(SERVER_MODULES.map((m) => m.name)).to.include.members(['foundation', 'speech', 'voices', 'realtime']);
  });

  it('parses into one typed object with defaults applied', () => {
    const config = loadConfig({ SVC_REALTIME_MAX_SESSIONS: '7', SVC_TTS_ENGINES: 'espeak', SVC_API_KEYS: 'a, b' });
    expect(config.settings.SVC_REALTIME_MAX_SESSIONS).to.equal(7);
    expect(config.settings.SVC_TTS_ENGINES).to.deep.equal(['espeak']);
    expect(config.settings.SVC_VOICE_WARM_UP).to.equal('lazy');
    expect(config.settings.SVC_API_KEYS).to.deep.equal(['a', 'b']);
    expect(() => loadConfig({ SVC_TLS_CERT: '/x.pem' })).to.throw(/SVC_TLS_CERT and SVC_TLS_KEY/);
  });

  it('accepts the URL forms each URL setting documents, and names the expected form when refusing one', () => {
    const good = {
      SVC_LLM_BASE_URL: 'https://api.example.com/v1',
      SVC_REDIS_URL: 'rediss://user:pa%40ss@redis.internal:6380/2',
      SVC_DATABASE_URL: 'postgresql://svc:secret@db.internal:5432/svc',
      SVC_S3_ENDPOINT: 'http://127.0.0.1:9000',
    };
    expect(loadConfig(good).settings).to.include(good);
    for (const database of [
      'sqlite:svc.sqlite',
      'sqlite:/var/lib/svc/svc.sqlite',
      'sqlite::memory:',
      'postgres:///svc?host=/var/run/postgresql',
    ]) {
      expect(loadConfig({ SVC_DATABASE_URL: database }).settings.SVC_DATABASE_URL).to.equal(database);
    }
    expect(loadConfig({}).settings.SVC_REDIS_URL).to.equal('');
    expect(() => loadConfig({ SVC_REDIS_URL: 'redis.internal:6379' })).to.throw(
      'Invalid configuration SVC_REDIS_URL: must be a redis:// or rediss:// URL',
    );
    expect(() => loadConfig({ SVC_LLM_BASE_URL: 'http://' })).to.throw(/SVC_LLM_BASE_URL: must be an http\(s\) URL/);
    expect(() => loadConfig({ SVC_DATABASE_URL: 'svc.sqlite' })).to.throw(/SVC_DATABASE_URL: must be sqlite:<path> or a postgres:\/\/ URL/);
  });
});
