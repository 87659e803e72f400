import { expect } from 'chai';
import { formatCreatedAt, presentVoice, presentVoiceDeleted, presentVoiceList } from '../../src/voices/voice-presenter.js';

const AT = Date.UTC(2026, 10, 25, 8, 30, 15, 999);
const voice = (id: string) => ({ id, refText: 'hello', description: 'mine', createdAt: AT });

describe('voice presenter: the spec Voice objects', () => {
  it('created_at is ISO 8601 UTC to the second (the spec types it as a string)', () => {
    expect(formatCreatedAt(AT)).to.equal('2026-11-25T08:30:15Z');
    expect(formatCreatedAt(0)).to.equal('1970-01-01T00:00:00Z');
  });

  it('a voice, a page of voices (ids of the first and last, has_more) and a deletion', () => {
    expect(presentVoice(voice('voice_a') as never)).to.deep.equal({
      voice: 'voice_a',
      ref_text: 'hello',
      description: 'mine',
      created_at: '2026-11-25T08:30:15Z',
    });
    expect(presentVoiceList({ voices: [voice('voice_a'), voice('voice_b')], hasMore: true } as never)).to.deep.equal({
      object: 'list',
      data: [
        { voice: 'voice_a', description: 'mine', created_at: '2026-11-25T08:30:15Z' },
        { voice: 'voice_b', description: 'mine', created_at: '2026-11-25T08:30:15Z' },
      ],
      has_more: true,
      first_id: 'voice_a',
      last_id: 'voice_b',
    });
    expect(presentVoiceList({ voices: [], hasMore: false } as never)).to.deep.equal({
      object: 'list',
      data: [],
      has_more: false,
      first_id: null,
      last_id: null,
    });
    expect(presentVoiceDeleted('voice_a')).to.deep.equal({ voice_id: 'voice_a', object: 'voice', deleted: true });
  });
});
