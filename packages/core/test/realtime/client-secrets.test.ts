import { expect } from 'chai';
import { MintClientSecret, RedeemClientSecret } from '../../src/realtime/index.js';
import { InvalidApiKeyError, InvalidParameterError } from '../../src/shared/errors.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { FakeHasher, SequentialIds } from '../fakes/fake-ids.js';
import { MapClientSecretRepository } from '../fakes/index.js';

const principal = { apiKeyId: 'key_owner', name: 'owner' };

function setup() {
  const repo = new MapClientSecretRepository();
  const clock = new FakeClock(1_700_000_000_000);
  const hasher = new FakeHasher();
  return {
    repo,
    clock,
    mint: new MintClientSecret(repo, new SequentialIds(), hasher, clock),
    redeem: new RedeemClientSecret(repo, hasher, clock),
    hasher,
  };
}

describe('realtime client secrets', () => {
  it('mints an svc-eph- key for 600 s by default, stores only its digest, bound to the minting key', async () => {
    const { repo, mint, hasher } = setup();
    const secret = await mint.execute(principal, {});
    expect(secret).to.deep.equal({
      object: 'realtime.client_secret',
      value: secret.value,
      expires_at: 1_700_000_000 + 600,
      session: { id: secret.session.id, object: 'realtime.session' },
    });
    expect(secret.value).to.match(/^svc-eph-/);
    expect(secret.session.id).to.match(/^sess_/);
    expect(repo.rows).to.deep.equal([
      {
        id: secret.session.id,
        secretHash: hasher.sha256(secret.value),
        apiKeyId: 'key_owner',
        apiKeyName: 'owner',
        createdAt: 1_700_000_000_000,
        expiresAt: 1_700_000_600_000,
      },
    ]);
    expect(JSON.stringify(repo.rows)).to.not.contain(secret.value);
  });

  it('accepts expires_after.seconds from 10 to 7200 and ignores a session object', async () => {
    const { mint } = setup();
    expect((await mint.execute(principal, { expires_after: { anchor: 'created_at', seconds: 10 } })).expires_at).to.equal(1_700_000_010);
    expect(
      (await mint.execute(principal, { expires_after: { seconds: 7200 }, session: { type: 'realtime', model: 'x' } })).expires_at,
    ).to.equal(1_700_007_200);
    expect((await mint.execute(principal, undefined)).expires_at).to.equal(1_700_000_600);
  });

  for (const seconds of [9, 7201, 60.5, '60', -1]) {
    it(`rejects expires_after.seconds = ${JSON.stringify(seconds)}`, async () => {
      const { mint, repo } = setup();
      const err = await mint.execute(principal, { expires_after: { seconds } }).catch((e) => e);
      expect(err).to.be.instanceOf(InvalidParameterError);
      expect(err.identifier).to.equal('invalid_parameter');
      expect(err.param).to.equal('expires_after.seconds');
      expect(repo.rows).to.have.length(0);
    });
  }

  it('redeems a valid key to its principal and session id; unknown and expired keys are refused', async () => {
    const { mint, redeem, clock } = setup();
    const secret = await mint.execute(principal, { expires_after: { seconds: 10 } });
    expect(await redeem.execute(secret.value)).to.deep.equal({ principal, sessionId: secret.session.id });
    expect(await redeem.execute('svc-eph-unknown').catch((e) => e)).to.be.instanceOf(InvalidApiKeyError);
    expect(await redeem.execute('sk-whatever').catch((e) => e)).to.be.instanceOf(InvalidApiKeyError);
    clock.advance(10_000);
    const expired = await redeem.execute(secret.value).catch((e) => e);
    expect(expired).to.be.instanceOf(InvalidApiKeyError);
    expect(expired.message).to.contain('expired');
  });
});
