import { expect } from 'chai';
import { InvalidParameterError, VoiceNotDeletableError, VoiceNotFoundError } from '../../src/shared/errors.js';
import { testAudio, tone } from '../fakes/index.js';
import { alice, bob, voiceWorld } from './voice-world.js';

async function failure(promise: Promise<unknown>): Promise<Error & { status?: number; identifier?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe('GetVoice / DeleteVoice', () => {
  it('unknown, foreign and deleted voices are the same 404, after the same single scoped lookup', async () => {
    const w = voiceWorld();
    const { voice } = await w.register.execute(alice, { refAudio: testAudio(tone(120)) });
    const deleted = (await w.register.execute(alice, { refAudio: testAudio(tone(140)) })).voice;
    await w.remove.execute(alice, deleted.id);

    const unknownId = 'voice_' + '0'.repeat(32);
    const cases: Array<[string, string, typeof alice]> = [
      ['unknown', unknownId, alice],
      ['foreign', voice.id, bob],
      ['deleted', deleted.id, alice],
    ];
    const bodies: string[] = [];
    for (const [, id, who] of cases) {
      for (const op of [() => w.get.execute(who, id), () => w.remove.execute(who, id)]) {
        w.repo.calls = [];
        const err = await failure(op());
        expect(err).to.be.instanceOf(VoiceNotFoundError);
        expect(w.repo.calls).to.have.length(1);
        bodies.push(err.message.replace(id, '<id>'));
      }
    }
    expect(new Set(bodies).size).to.equal(1);
    // Bob's attempt changed nothing for Alice.
    expect((await w.get.execute(alice, voice.id)).id).to.equal(voice.id);
  });

  it('presets cannot be deleted (403 voice_not_deletable), default included', async () => {
    const w = voiceWorld();
    for (const name of ['default', 'slt', 'rms']) {
      const err = await failure(w.remove.execute(alice, name));
      expect(err).to.be.instanceOf(VoiceNotDeletableError);
      expect(err.identifier).to.equal('voice_not_deletable');
    }
  });

  it('delete removes the row and the reference audio; the same audio then registers with the same id', async () => {
    const w = voiceWorld();
    const { voice } = await w.register.execute(alice, { refAudio: testAudio(tone(120)) });
    expect(await w.remove.execute(alice, voice.id)).to.deep.equal({ voiceId: voice.id });
    expect(w.blobs.blobs.size).to.equal(0);
    expect(await failure(w.get.execute(alice, voice.id))).to.be.instanceOf(VoiceNotFoundError);
    expect(await failure(w.cloner.registered(alice, voice.id))).to.be.instanceOf(VoiceNotFoundError);
    const again = await w.register.execute(alice, { refAudio: testAudio(tone(120)) });
    expect(again).to.deep.include({ created: true });
    expect(again.voice.id).to.equal(voice.id);
  });

  it("deleting one key's voice leaves the other key's copy of the same audio", async () => {
    const w = voiceWorld();
    const a = await w.register.execute(alice, { refAudio: testAudio(tone(120)) });
    const b = await w.register.execute(bob, { refAudio: testAudio(tone(120)) });
    await w.remove.execute(alice, a.voice.id);
    expect((await w.get.execute(bob, b.voice.id)).id).to.equal(a.voice.id);
    expect(await w.blobs.exists(b.voice.audioKey)).to.equal(true);
  });
});

describe('ListVoices', () => {
  async function registerMany(w: ReturnType<typeof voiceWorld>, count: number) {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      w.clock.advance(i % 2 === 0 ? 1000 : 0); // pairs share a creation time: the id breaks the tie
      ids.push((await w.register.execute(alice, { refAudio: testAudio(tone(100 + i)) })).voice.id);
    }
    return ids;
  }

  it('lists only the caller’s voices, newest first, default page size 20', async () => {
    const w = voiceWorld();
    await registerMany(w, 25);
    await w.register.execute(bob, { refAudio: testAudio(tone(300)) });
    const page = await w.list.execute(alice);
    expect(page.voices).to.have.length(20);
    expect(page.hasMore).to.equal(true);
    const order = page.voices.map((v) => [v.createdAt, v.id] as const);
    const sorted = [...order].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : -1));
    expect(order).to.deep.equal(sorted);
    expect(page.voices.every((v) => v.apiKeyId === 'key_alice')).to.equal(true);
    expect((await w.list.execute(bob)).voices).to.have.length(1);
  });

  it('pages with `after` through every voice exactly once', async () => {
    const w = voiceWorld();
    const ids = await registerMany(w, 11);
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await w.list.execute(alice, { limit: 3, after });
      seen.push(...page.voices.map((v) => v.id));
      if (!page.hasMore) break;
      after = page.voices.at(-1)!.id;
    }
    expect(seen).to.have.length(11);
    expect(new Set(seen)).to.deep.equal(new Set(ids));
  });

  it('refuses bad limits and cursors that are not one of the caller’s voices', async () => {
    const w = voiceWorld();
    const bobs = (await w.register.execute(bob, { refAudio: testAudio(tone(300)) })).voice.id;
    for (const limit of [0, 101, 2.5]) {
      const err = await failure(w.list.execute(alice, { limit }));
      expect(err).to.be.instanceOf(InvalidParameterError);
      expect((err as InvalidParameterError).param).to.equal('limit');
    }
    expect(((await failure(w.list.execute(alice, { after: bobs }))) as InvalidParameterError).param).to.equal('after');
    expect((await w.list.execute(alice, { limit: 100 })).voices).to.have.length(0);
  });
});
