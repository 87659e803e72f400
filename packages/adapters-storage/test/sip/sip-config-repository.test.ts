import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidRequestError, type SipKeyConfig } from '@svc/core';
import { databaseTargets } from '../database-targets.js';
import { SecretBox, TypeOrmSipConfigRepository } from '../../src/sip/index.js';
import { SipConfigEntity } from '../../src/sip/sip-config.entity.js';

const config = (apiKeyId: string, username: string, over: Partial<SipKeyConfig> = {}): SipKeyConfig => ({
  apiKeyId,
  username,
  ha1: '0123456789abcdef0123456789abcdef',
  webhookUrl: 'https://app.example.com/hooks/calls',
  webhookSecret: `whsec_${randomBytes(32).toString('base64')}`,
  session: { instructions: 'Answer the front desk ✓', voice: 'alloy' },
  createdAt: 1_764_400_000_123,
  updatedAt: 1_764_400_000_456,
  ...over,
});

for (const target of databaseTargets()) {
  describe(`TypeOrmSipConfigRepository (${target.name})`, () => {
    let repo: TypeOrmSipConfigRepository;
    let cleanup: () => Promise<void>;
    let raw: () => Promise<SipConfigEntity[]>;
    beforeEach(async () => {
      const opened = await target.open();
      cleanup = opened.cleanup;
      repo = new TypeOrmSipConfigRepository(opened.dataSource, new SecretBox(randomBytes(32)));
      raw = () => opened.dataSource.getRepository(SipConfigEntity).find();
    });
    afterEach(() => cleanup());

    it('stores, finds by key and by user name, replaces, deletes and counts', async () => {
      const a = config('key_a', 'alice');
      await repo.save(a);
      expect(await repo.get('key_a')).to.deep.equal(a);
      expect(await repo.findByUsername('alice')).to.deep.equal(a);
      expect(await repo.get('key_b')).to.equal(null);
      expect(await repo.findByUsername('bob')).to.equal(null);
      const replaced = { ...a, username: 'alice2', webhookUrl: null, webhookSecret: null, session: null, updatedAt: 1_764_400_009_000 };
      await repo.save(replaced);
      expect(await repo.get('key_a')).to.deep.equal(replaced);
      expect(await repo.findByUsername('alice')).to.equal(null);
      await repo.save(config('key_b', 'bob'));
      expect(await repo.count()).to.equal(2);
      expect(await repo.delete('key_a')).to.equal(true);
      expect(await repo.delete('key_a')).to.equal(false);
      expect(await repo.count()).to.equal(1);
    });

    it('a user name belongs to one key only', async () => {
      await repo.save(config('key_a', 'alice'));
      const err = await repo.save(config('key_b', 'alice')).catch((e: unknown) => e);
      // what two keys claiming the name at the same moment meet: a 400 on username, not a 500
      expect(err).to.be.instanceOf(InvalidRequestError);
      expect((err as InvalidRequestError).param).to.equal('username');
      expect((await repo.findByUsername('alice'))?.apiKeyId).to.equal('key_a');
    });

    it('writes the webhook secret sealed, never in the clear', async () => {
      const a = config('key_a', 'alice');
      await repo.save(a);
      const [row] = await raw();
      expect(row!.webhookSecretSealed).to.be.a('string').and.not.include(a.webhookSecret!.slice(6));
      expect(row!.webhookSecretSealed).to.match(/^v1\./);
    });
  });
}

describe('SecretBox (AES-256-GCM for secrets the service must read back)', () => {
  it('opens what it sealed; another key or an altered value does not open', () => {
    const box = new SecretBox(randomBytes(32));
    const sealed = box.seal('whsec_secret');
    expect(box.seal('whsec_secret')).to.not.equal(sealed, 'a fresh IV each time');
    expect(box.open(sealed)).to.equal('whsec_secret');
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).to.throw();
    const [v, iv, tag, body] = sealed.split('.');
    const flipped = Buffer.from(body!, 'base64');
    flipped[0]! ^= 1;
    expect(() => box.open([v, iv, tag, flipped.toString('base64')].join('.'))).to.throw();
    expect(() => new SecretBox(randomBytes(16))).to.throw(/32 bytes/);
  });

  it('takes its key from the setting, else creates a 0600 key file once and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-box-'));
    try {
      const file = join(dir, 'nested', 'sip-config.key');
      const sealed = SecretBox.fromSettingOrFile('', file).seal('x');
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      const key = readFileSync(file, 'utf8');
      expect(SecretBox.fromSettingOrFile('', file).open(sealed)).to.equal('x');
      expect(readFileSync(file, 'utf8')).to.equal(key);
      const fromSetting = SecretBox.fromSettingOrFile(key.trim(), join(dir, 'unused.key'));
      expect(fromSetting.open(sealed)).to.equal('x');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
