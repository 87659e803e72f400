import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import type { RegisterVoiceCommand } from '../../src/voices/register-voice.js';
import { testAudio, tone } from '../fakes/index.js';
import { alice, bob, voiceWorld } from './voice-world.js';

const clip = (hz: number): RegisterVoiceCommand => ({ refAudio: testAudio(tone(hz)) });

describe('RegisterVoice: the per-key cap of stored voices (SVC_VOICES_MAX_PER_KEY)', () => {
  it('a key at its cap is refused before its body is read; other keys go on; deleting a voice frees a place', async () => {
    const w = voiceWorld({ maxPerKey: 2 });
    const first = await w.register.execute(alice, clip(110));
    await w.register.execute(alice, clip(120));
    const analysed = w.analyzer.calls;
    let read = false;
    const err = await refusal(
      w.register.execute(alice, async () => {
        read = true;
        return clip(130);
      }),
    );
    expect([err.identifier, err.param]).to.deep.equal(['voice_limit_exceeded', null]);
    expect(err.message).to.contain('already has 2 registered voices');
    expect(read, 'the refused body is never read').to.equal(false);
    expect(w.analyzer.calls, 'nothing was analysed for it').to.equal(analysed);
    expect((await refusal(w.register.execute(alice, clip(110)))).identifier, 'at the cap, also audio it has').to.equal(
      'voice_limit_exceeded',
    );
    expect((await w.register.execute(bob, clip(130))).created, "another key's voices do not count").to.equal(true);
    await w.remove.execute(alice, first.voice.id);
    expect((await w.register.execute(alice, clip(130))).created).to.equal(true);
    expect(await w.repo.count(alice.apiKeyId)).to.equal(2);
  });

  it('counts a burst sent at once before its rows exist: exactly the cap is stored; a failed one leaves no count', async () => {
    const w = voiceWorld({ maxPerKey: 3 });
    const outcomes = await Promise.allSettled([100, 110, 120, 130, 140, 150].map((hz) => w.register.execute(alice, clip(hz))));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(3);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.identifier)).to.deep.equal(
      Array(3).fill('voice_limit_exceeded'),
    );
    const [stored] = (await w.list.execute(alice, {})).voices;
    await w.remove.execute(alice, stored!.id);
    expect((await refusal(w.register.execute(alice, { refAudio: '' }))).identifier).to.equal('media_empty');
    expect((await w.register.execute(alice, clip(160))).created, 'the failed registration freed its count').to.equal(true);
  });

  it('two processes on one repository: registrations admitted at once in each never leave the key over its cap', async () => {
    const w = voiceWorld({ maxPerKey: 1 });
    const [one, two] = [w.registerIn(), w.registerIn()];
    // Each is admitted (its process sees no voice and none in flight) before either stores its row.
    let admitted = 0;
    let bothAdmitted!: () => void;
    const gate = new Promise<void>((resolve) => (bothAdmitted = resolve));
    const afterBoth = (command: RegisterVoiceCommand) => async () => {
      if (++admitted === 2) bothAdmitted();
      await gate;
      return command;
    };
    const outcomes = await Promise.allSettled([one.execute(alice, afterBoth(clip(100))), two.execute(alice, afterBoth(clip(200)))]);
    expect(admitted).to.equal(2);
    expect(await w.repo.count(alice.apiKeyId), 'never more than the cap').to.be.at.most(1);
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.identifier);
    expect(refused.length).to.be.at.least(1);
    expect(new Set(refused)).to.deep.equal(new Set(['voice_limit_exceeded']));
    expect(w.blobs.blobs.size, 'a row taken back takes its audio with it').to.equal(await w.repo.count(alice.apiKeyId));
  });
});
