import { expect } from 'chai';
import { FloodCooldownSessionRegistry, InMemorySessionRegistry, type AdmissionDecision } from '../../src/index.js';
import { FakeClock } from '../fakes/fake-clock.js';

const apiKey = (id: string) => ({ apiKeyId: id, secretSessionId: null });
const secret = (id: string, session: string) => ({ apiKeyId: id, secretSessionId: session });
const outcome = (d: AdmissionDecision) => (d.admitted ? 'admitted' : d.refusal);

describe('a credential whose session flooded waits before its next one (FloodCooldownSessionRegistry)', () => {
  const make = (cooldownMs = 10_000) => {
    const clock = new FakeClock();
    const registry = new FloodCooldownSessionRegistry(
      new InMemorySessionRegistry({ maxSessions: 100, maxSessionsPerKey: 100 }),
      clock,
      cooldownMs,
    );
    return { clock, registry };
  };

  it('refuses the flooding key for the cooldown, with the seconds left, and admits every other key meanwhile', async () => {
    const { clock, registry } = make();
    registry.penalize(apiKey('k1'));
    const refused = await registry.admit(apiKey('k1'));
    expect(refused).to.deep.equal({
      admitted: false,
      refusal: 'flood_cooldown',
      reason: "this key's last session sent more than its inbound budget; retry in 10 s",
    });
    expect(Buffer.byteLength((refused as { reason: string }).reason), 'fits a close reason').to.be.at.most(123);
    expect(outcome(await registry.admit(apiKey('k2')))).to.equal('admitted');
    clock.advance(9_200);
    expect(((await registry.admit(apiKey('k1'))) as { reason: string }).reason).to.match(/retry in 1 s$/);
    clock.advance(800);
    expect(outcome(await registry.admit(apiKey('k1'))), 'the cooldown is over').to.equal('admitted');
  });

  it("an ephemeral key's flood holds back the API key that minted it: a fresh ephemeral key does not bypass the wait (issue 33)", async () => {
    const { registry } = make();
    registry.penalize(secret('app', 'sess_browser_1'));
    expect(outcome(await registry.admit(secret('app', 'sess_browser_1')))).to.equal('flood_cooldown');
    expect(outcome(await registry.admit(secret('app', 'sess_browser_2'))), 'a freshly minted ephemeral key').to.equal('flood_cooldown');
    expect(outcome(await registry.admit(apiKey('app'))), 'the minting key itself').to.equal('flood_cooldown');
    expect(outcome(await registry.admit(secret('other', 'sess_other_1'))), "another key's ephemeral keys").to.equal('admitted');
  });

  it('a second flood restarts the wait; a cooldown of 0 never refuses', async () => {
    const { clock, registry } = make();
    registry.penalize(apiKey('k1'));
    clock.advance(8_000);
    registry.penalize(apiKey('k1'));
    clock.advance(8_000);
    expect(outcome(await registry.admit(apiKey('k1')))).to.equal('flood_cooldown');
    const off = make(0).registry;
    off.penalize(apiKey('k1'));
    expect(outcome(await off.admit(apiKey('k1')))).to.equal('admitted');
  });
});
