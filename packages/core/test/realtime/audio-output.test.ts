import { expect } from 'chai';
import type { RealtimeServerEvent } from '../../src/realtime/index.js';
import { FakeReplySpeaker, ScriptedLanguageModel } from './support/fakes.js';
import { createHarness } from './support/session-harness.js';

async function audioSession(format: Record<string, unknown> = { type: 'audio/pcm', rate: 24000 }, speaker: FakeReplySpeaker | null = new FakeReplySpeaker()) {
  const lm = new ScriptedLanguageModel([
    { type: 'text', delta: 'Hello there. ' },
    { type: 'text', delta: 'How are ' },
    { type: 'text', delta: 'you?' },
  ]);
  const h = createHarness({ lm, audio: speaker ? { replySpeaker: speaker } : {} });
  await h.send({
    type: 'session.update',
    session: { model: 'svc-realtime', output_modalities: ['audio'], audio: { input: { turn_detection: null }, output: { format, voice: 'slt' } } },
  });
  h.out.reset();
  return h;
}

const strip = (e: RealtimeServerEvent) => {
  const { event_id: _e, ...rest } = e;
  return rest;
};

describe('realtime spoken responses', () => {
  it('streams transcript deltas, audio deltas per sentence and the transcript length extension event', async () => {
    const speaker = new FakeReplySpeaker(10);
    const h = await audioSession(undefined, speaker);
    await h.send({ type: 'response.create' });
    const events = h.out.take();
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).to.deep.equal(['response.created', 'response.output_item.added', 'conversation.item.added', 'response.content_part.added']);
    expect(types.slice(-5)).to.deep.equal([
      'response.output_audio.done',
      'response.output_audio_transcript.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.done',
    ]);
    // Transcript deltas flow as tokens arrive; audio follows sentence by sentence, each sentence
    // closed by its length event.
    expect(types.filter((t) => t === 'response.output_audio_transcript.delta')).to.have.length(3);
    expect(types.filter((t) => t === 'response.output_audio.delta' || t === 'response.output_audio_transcript.length')).to.deep.equal([
      'response.output_audio.delta',
      'response.output_audio.delta',
      'response.output_audio_transcript.length',
      'response.output_audio.delta',
      'response.output_audio.delta',
      'response.output_audio_transcript.length',
    ]);
    const lengths = events.filter((e) => e.type === 'response.output_audio_transcript.length');
    const byType = (t: string) => events.filter((e) => e.type === t);
    const itemId = (events[1]!.item as any).id;
    const responseId = (events[0]!.response as any).id;
    const where = { response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 };
    expect(strip(events[3]!)).to.deep.equal({ type: 'response.content_part.added', ...where, part: { type: 'audio', transcript: '' } });
    // "Hello there." = 12 chars * 10 samples at 24 kHz = 5 ms of audio.
    expect(strip(lengths[0]!)).to.deep.equal({ type: 'response.output_audio_transcript.length', ...where, delta: 'Hello there.', length_ms: 5 });
    expect(strip(lengths[1]!)).to.deep.equal({ type: 'response.output_audio_transcript.length', ...where, delta: 'How are you?', length_ms: 10 });
    const audioBytes = events.filter((e) => e.type === 'response.output_audio.delta').reduce((n, e) => n + Buffer.from(e.delta as string, 'base64').length, 0);
    expect(audioBytes).to.equal(24 * 10 * 2);
    expect(strip(byType('response.output_audio_transcript.done')[0]!)).to.deep.equal({ type: 'response.output_audio_transcript.done', ...where, transcript: 'Hello there. How are you?' });
    expect(strip(byType('response.content_part.done')[0]!)).to.deep.equal({ type: 'response.content_part.done', ...where, part: { type: 'audio', transcript: 'Hello there. How are you?' } });
    expect((byType('response.output_item.done')[0]!.item as any).content).to.deep.equal([{ type: 'output_audio', transcript: 'Hello there. How are you?' }]);
    expect(speaker.requests.map((r) => [r.text, r.voice, r.sampleRate])).to.deep.equal([
      ['Hello there.', 'slt', 24000],
      ['How are you?', 'slt', 24000],
    ]);
  });

  it('encodes audio/pcmu output at 8 kHz, one byte per sample', async () => {
    const speaker = new FakeReplySpeaker(10);
    const h = await audioSession({ type: 'audio/pcmu' }, speaker);
    await h.send({ type: 'response.create' });
    const bytes = h.out.all('response.output_audio.delta').reduce((n, e) => n + Buffer.from(e.delta as string, 'base64').length, 0);
    expect(bytes).to.equal(24 * 10);
    expect(speaker.requests[0]!.sampleRate).to.equal(8000);
  });

  it('without a speaker (or an opus codec) the reply still carries its transcript, with no audio deltas', async () => {
    for (const h of [await audioSession(undefined, null), await audioSession({ type: 'audio/opus', frame_size_ms: 20 })]) {
      await h.send({ type: 'response.create' });
      const types = h.out.types();
      expect(types).to.not.include('response.output_audio.delta');
      expect(types).to.include('response.output_audio.done');
      expect(h.out.last('response.output_audio_transcript.done').transcript).to.equal('Hello there. How are you?');
    }
  });

  it('truncates a spoken item at the playback position, keeping the transcript heard so far', async () => {
    const h = await audioSession(undefined, new FakeReplySpeaker(100));
    await h.send({ type: 'response.create' });
    const itemId = (h.out.last('response.output_item.done').item as any).id;
    h.out.take();
    // 1200 samples (50 ms) for the first sentence, 100 ms in total.
    await h.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: 70 });
    expect(h.out.take().map(strip)).to.deep.equal([{ type: 'conversation.item.truncated', item_id: itemId, content_index: 0, audio_end_ms: 70 }]);
    await h.send({ type: 'conversation.item.retrieve', item_id: itemId });
    expect((h.out.take()[0]!.item as any).content).to.deep.equal([{ type: 'output_audio', transcript: 'Hello there.' }]);
    await h.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: 5000 });
    expect(h.out.take()[0]!.error).to.deep.include({ code: 'invalid_value', param: 'audio_end_ms' });
    await h.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 3, audio_end_ms: 0 });
    expect(h.out.take()[0]!.error).to.deep.include({ param: 'content_index' });
  });
});
