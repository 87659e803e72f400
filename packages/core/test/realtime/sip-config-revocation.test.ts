import { expect } from 'chai';
import { InvalidApiKeyError } from '../../src/shared/errors.js';
import { ManageSipConfig, sipConfigHolding, type SipConfigRepository, type SipKeyConfig } from '../../src/realtime/index.js';
import { FakeClock } from '../fakes/fake-clock.js';

class MapSipConfigs implements SipConfigRepository {
  readonly byKey = new Map<string, SipKeyConfig>();
  async get(apiKeyId: string) {
    return this.byKey.get(apiKeyId) ?? null;
  }
  async findByUsername(username: string) {
    return [...this.byKey.values()].find((c) => c.username === username) ?? null;
  }
  async save(config: SipKeyConfig) {
    this.byKey.set(config.apiKeyId, config);
  }
  async delete(apiKeyId: string) {
    return this.byKey.delete(apiKeyId);
  }
  async count() {
    return this.byKey.size;
  }
}

const principal = { apiKeyId: 'key_a', name: 'a' };
const input = { username: 'alice', password: 'pw', webhookUrl: 'https://hooks.example/calls', session: null };

/**
 * A key revoked while one of its requests is storing its SIP configuration: the revocation marks
 * the key revoked, then releases (deletes) its configuration. A save that lands after the release
 * (its webhook URL was still being checked) must not leave a configuration behind the revoked key.
 */
describe('SIP configuration: a key revoked while its save is under way', () => {
  function setUp() {
    const repo = new MapSipConfigs();
    let active = true;
    let urlChecked!: () => void;
    const checking = new Promise<void>((resolve) => (urlChecked = resolve));
    const manage = new ManageSipConfig({
      repo,
      clock: new FakeClock(1_000),
      ha1: (u, p) => `${u}:${p}`,
      newWebhookSecret: () => 'whsec_test',
      checkWebhookUrl: () => checking,
      checkSession: () => undefined,
      reservedUsernames: [],
      isKeyActive: async () => active,
    });
    const revoke = async () => {
      active = false;
      await sipConfigHolding(repo).release(principal.apiKeyId);
    };
    return { repo, manage, revoke, urlChecked };
  }

  it('refuses the save as invalid_api_key and leaves no configuration when the revocation came first', async () => {
    const { repo, manage, revoke, urlChecked } = setUp();
    const saving = manage.set(principal, input);
    await revoke();
    urlChecked();
    const err = await saving.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(InvalidApiKeyError);
    expect(repo.byKey.size).to.equal(0);
    expect(await repo.findByUsername('alice')).to.equal(null);
  });

  it('stores it while the key stays active', async () => {
    const { repo, manage, urlChecked } = setUp();
    urlChecked();
    const { config, newWebhookSecret } = await manage.set(principal, input);
    expect(newWebhookSecret).to.equal('whsec_test');
    expect(repo.byKey.get('key_a')).to.deep.equal(config);
  });
});
