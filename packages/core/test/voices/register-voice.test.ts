import { expect } from 'chai';
import { InvalidAudioError, InvalidParameterError } from '../../src/shared/errors.js';
import { EmptyMediaError, InvalidInlineMediaError } from '../../src/media/errors.js';
import { ReferenceAudioSilentError, ReferenceAudioTooLongError, ReferenceAudioTooShortError } from '../../src/voices/errors.js';
import { isVoiceId } from '../../src/voices/voice.js';
import { testAudio, tone } from '../fakes/index.js';
import { alice, bob, voiceWorld } from './voice-world.js';

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

describe('RegisterVoice', () => {
  it('derives the id from the decoded audio: same audio in another container gives the same id', async () => {
    const w = voiceWorld();
    const a = await w.register.execute(alice, { refAudio: testAudio(tone(120), 'wav'), refText: 'hello there', description: 'first' });
    const b = await w.register.execute(alice, { refAudio: base64(testAudio(tone(120), 'flac-with-other-tags')) });
    expect(isVoiceId(a.voice.id)).to.equal(true);
    expect(a.created).to.equal(true);
    expect(b.created).to.equal(false);
    expect(b.voice.id).to.equal(a.voice.id);
    // The existing voice is returned unchanged, and nothing was stored twice.
    expect(b.voice).to.deep.include({ refText: 'hello there', description: 'first', createdAt: a.voice.createdAt });
    expect(w.repo.rows.size).to.equal(1);
    expect(w.blobs.blobs.size).to.equal(1);
  });

  it('does not analyse again when the same key re-registers the same audio', async () => {
    const w = voiceWorld();
    await w.register.execute(alice, { refAudio: testAudio(tone(120)) });
    const calls = w.analyzer.calls;
    await w.register.execute(alice, { refAudio: testAudio(tone(120)) });
    expect(w.analyzer.calls).to.equal(calls);
  });

  it('different audio gives a different id', async () => {
    const w = voiceWorld();
    const a = await w.register.execute(alice, { refAudio: testAudio(tone(120)) });
    const b = await w.register.execute(alice, { refAudio: testAudio(tone(121)) });
    expect(a.voice.id).to.not.equal(b.voice.id);
  });

  it('the same audio under another key is a separate voice owned by that key', async () => {
    const w = voiceWorld();
    const a = await w.register.execute(alice, { refAudio: testAudio(tone(120)), description: 'alice' });
    const b = await w.register.execute(bob, { refAudio: testAudio(tone(120)), description: 'bob' });
    expect(b.created).to.equal(true);
    expect(b.voice.id).to.equal(a.voice.id);
    expect(b.voice.apiKeyId).to.equal('key_bob');
    expect(b.voice.audioKey).to.not.equal(a.voice.audioKey);
    expect(w.repo.rows.size).to.equal(2);
  });

  it('stores the measured profile with the chosen base preset', async () => {
    const w = voiceWorld();
    const { voice } = await w.register.execute(alice, { refAudio: testAudio(tone(160)) });
    expect(voice.profile.speaker.f0MedianHz).to.be.closeTo(160, 2);
    expect(voice.profile.base.preset).to.equal('slt');
    expect(voice.profile.base.speaker.f0MedianHz).to.be.closeTo(170, 2);
    expect(voice.profile.analyzer).to.equal('test-analyzer');
  });

  it('writes the reference audio before the row (a row never exists without its audio)', async () => {
    const w = voiceWorld();
    const order: string[] = [];
    const put = w.blobs.put.bind(w.blobs);
    w.blobs.put = async (k, d) => (order.push('blob'), put(k, d));
    const insert = w.repo.insertIfAbsent.bind(w.repo);
    w.repo.insertIfAbsent = async (r) => (order.push('row'), insert(r));
    const { voice } = await w.register.execute(alice, { refAudio: testAudio(tone(120)) });
    expect(order).to.deep.equal(['blob', 'row']);
    expect(await w.blobs.get(voice.audioKey)).to.deep.equal(testAudio(tone(120)));
  });

  it('a crash between the two writes leaves no visible voice, and registering again works', async () => {
    const w = voiceWorld();
    w.repo.failNextInsert = new Error('process killed');
    let failed = false;
    try {
      await w.register.execute(alice, { refAudio: testAudio(tone(120)) });
    } catch {
      failed = true;
    }
    expect(failed).to.equal(true);
    expect((await w.list.execute(alice)).voices).to.have.length(0);
    expect(w.blobs.blobs.size).to.equal(1); // an orphan blob, referenced by nothing
    const again = await w.register.execute(alice, { refAudio: testAudio(tone(120)) });
    expect(again.created).to.equal(true);
    expect(await w.blobs.exists(again.voice.audioKey)).to.equal(true);
  });

  it('a registration that loses a race returns the winner and removes its own blob', async () => {
    const w = voiceWorld();
    const [a, b] = await Promise.all([
      w.register.execute(alice, { refAudio: testAudio(tone(120)) }),
      w.register.execute(alice, { refAudio: testAudio(tone(120)) }),
    ]);
    expect(a.voice.id).to.equal(b.voice.id);
    expect([a.created, b.created].sort()).to.deep.equal([false, true]);
    expect(w.repo.rows.size).to.equal(1);
    expect([...w.blobs.blobs.keys()]).to.deep.equal([a.voice.audioKey]);
    expect(b.voice.audioKey).to.equal(a.voice.audioKey);
  });

  const refused: Array<[string, () => unknown, new (...args: never[]) => Error]> = [
    ['not audio', () => new TextEncoder().encode('<html>hello</html>'), InvalidAudioError],
    ['empty', () => new Uint8Array(0), EmptyMediaError],
    ['silent', () => testAudio(new Int16Array(32000)), ReferenceAudioSilentError],
    ['too short', () => testAudio(tone(120, 0.5)), ReferenceAudioTooShortError],
    ['too long', () => testAudio(tone(120, 121)), ReferenceAudioTooLongError],
    ['invalid base64', () => 'not base64 at all!', InvalidInlineMediaError],
  ];
  for (const [name, input, errorClass] of refused) {
    it(`refuses ${name} audio with a 400 and stores nothing`, async () => {
      const w = voiceWorld();
      let error: unknown;
      try {
        await w.register.execute(alice, { refAudio: input() as Uint8Array });
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(errorClass);
      expect((error as { serverFault: boolean }).serverFault, 'the caller is at fault').to.equal(false);
      expect(w.repo.rows.size).to.equal(0);
      expect(w.blobs.blobs.size).to.equal(0);
    });
  }

  it('limits description and ref_text lengths (in characters)', async () => {
    const w = voiceWorld();
    const tooLong = async (cmd: object) => {
      try {
        await w.register.execute(alice, { refAudio: testAudio(tone(120)), ...cmd });
        return null;
      } catch (err) {
        return err as InvalidParameterError;
      }
    };
    expect((await tooLong({ description: 'é'.repeat(1001) }))?.param).to.equal('description');
    expect((await tooLong({ refText: 'a'.repeat(5001) }))?.param).to.equal('ref_text');
    expect(await tooLong({ description: '😀'.repeat(1000) })).to.equal(null);
    expect(w.repo.rows.size).to.equal(1);
  });
});
