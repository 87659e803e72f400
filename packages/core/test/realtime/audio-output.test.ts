import { expect } from 'chai';
import type { RealtimeServerEvent } from '../../src/realtime/index.js';
import { EnergyVad, FakeReplySpeaker, FakeStreamingRecognizer, flush, pcmBase64, ScriptedLanguageModel } from '../fakes/index.js';
import { createHarness } from './support/session-harness.js';
import { EDGE_SILENCE_MS, JOIN_SILENCE_MS } from '../../src/speech/join-silence.js';

async function audioSession(
  format: Record<string, unknown> = { type: 'audio/pcm', rate: 24000 },
  speaker: FakeReplySpeaker | null = new FakeReplySpeaker(),
) {
  const lm = new ScriptedLanguageModel([
    { type: 'text', delta: 'Hello there. ' },
    { type: 'text', delta: 'How are ' },
    { type: 'text', delta: 'you?' },
  ]);
  const h = createHarness({ lm, audio: speaker ? { replySpeaker: speaker } : {} });
  await h.send({
    type: 'session.update',
    session: {
      model: 'svc-realtime',
      output_modalities: ['audio'],
      audio: { input: { turn_detection: null }, output: { format, voice: 'slt' } },
    },
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
    expect(types.slice(0, 4)).to.deep.equal([
      'response.created',
      'response.output_item.added',
      'conversation.item.added',
      'response.content_part.added',
    ]);
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
    expect(strip(lengths[0]!)).to.deep.equal({
      type: 'response.output_audio_transcript.length',
      ...where,
      delta: 'Hello there.',
      length_ms: 5,
    });
    expect(strip(lengths[1]!)).to.deep.equal({
      type: 'response.output_audio_transcript.length',
      ...where,
      delta: 'How are you?',
      length_ms: 10,
    });
    const audioBytes = events
      .filter((e) => e.type === 'response.output_audio.delta')
      .reduce((n, e) => n + Buffer.from(e.delta as string, 'base64').length, 0);
    expect(audioBytes).to.equal(24 * 10 * 2);
    expect(strip(byType('response.output_audio_transcript.done')[0]!)).to.deep.equal({
      type: 'response.output_audio_transcript.done',
      ...where,
      transcript: 'Hello there. How are you?',
    });
    expect(strip(byType('response.content_part.done')[0]!)).to.deep.equal({
      type: 'response.content_part.done',
      ...where,
      part: { type: 'audio', transcript: 'Hello there. How are you?' },
    });
    expect((byType('response.output_item.done')[0]!.item as any).content).to.deep.equal([
      { type: 'output_audio', transcript: 'Hello there. How are you?' },
    ]);
    expect(speaker.requests.map((r) => [r.text, r.voice, r.sampleRate])).to.deep.equal([
      ['Hello there.', 'slt', 24000],
      ['How are you?', 'slt', 24000],
    ]);
  });

  it("asks for a reply that starts and ends with the voice: the first piece's opening and the last one's close are trimmed, sentence pauses stay", async () => {
    const speaker = new FakeReplySpeaker(10);
    const h = await audioSession(undefined, speaker);
    await h.send({ type: 'response.create' });
    expect(speaker.requests.map((r) => [r.text, r.edges])).to.deep.equal([
      ['Hello there.', { leadingKeepMs: EDGE_SILENCE_MS, trailingKeepMs: null }],
      ['How are you?', { leadingKeepMs: null, trailingKeepMs: EDGE_SILENCE_MS }],
    ]);
  });

  it("joins a first clause to the rest of its sentence with a comma's pause", async () => {
    const speaker = new FakeReplySpeaker(10);
    const lm = new ScriptedLanguageModel([
      { type: 'text', delta: 'Sure thing, my friend, here ' },
      { type: 'text', delta: 'it is. And more. ' },
      { type: 'text', delta: 'All done.' },
    ]);
    const h = createHarness({ lm, audio: { replySpeaker: speaker } });
    await h.send({
      type: 'session.update',
      session: {
        model: 'svc-realtime',
        output_modalities: ['audio'],
        audio: { input: { turn_detection: null }, output: { voice: 'slt' } },
      },
    });
    await h.send({ type: 'response.create' });
    expect(speaker.requests.map((r) => [r.text, r.edges])).to.deep.equal([
      ['Sure thing, my friend,', { leadingKeepMs: EDGE_SILENCE_MS, trailingKeepMs: JOIN_SILENCE_MS }],
      ['here it is.', { leadingKeepMs: JOIN_SILENCE_MS, trailingKeepMs: null }],
      ['And more.', { leadingKeepMs: null, trailingKeepMs: null }],
      ['All done.', { leadingKeepMs: null, trailingKeepMs: EDGE_SILENCE_MS }],
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
    expect(h.out.take().map(strip)).to.deep.equal([
      { type: 'conversation.item.truncated', item_id: itemId, content_index: 0, audio_end_ms: 70 },
    ]);
    await h.send({ type: 'conversation.item.retrieve', item_id: itemId });
    // Cut at the last word heard: "How" ends at 3/12 of the second sentence's 50 ms (63 ms).
    expect((h.out.take()[0]!.item as any).content).to.deep.equal([{ type: 'output_audio', transcript: 'Hello there. How' }]);
    await h.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: 5000 });
    expect(h.out.take()[0]!.error).to.deep.include({ code: 'invalid_value', param: 'audio_end_ms' });
    await h.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 3, audio_end_ms: 0 });
    expect(h.out.take()[0]!.error).to.deep.include({ param: 'content_index' });
    // A negative position names the bound there is (no upper one: the item's length is checked after).
    await h.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: -5 });
    expect(h.out.take()[0]!.error).to.deep.include({
      type: 'invalid_request_error',
      code: 'invalid_value',
      param: 'audio_end_ms',
      message: "'audio_end_ms' must be at least 0.",
    });
    await h.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: -1, audio_end_ms: 0 });
    expect(h.out.take()[0]!.error).to.deep.include({ param: 'content_index', message: "'content_index' must be at least 0." });
  });

  describe('paced like playback', () => {
    // 4000 samples per character at 24 kHz: "Hello there." is 2 s of audio, the reply 4 s.
    const long = () => audioSession(undefined, new FakeReplySpeaker(4000));
    const sentMs = (events: RealtimeServerEvent[]) =>
      events
        .filter((e) => e.type === 'response.output_audio.delta')
        .reduce((n, e) => n + Buffer.from(e.delta as string, 'base64').length / 48, 0);

    it('sends small deltas (40 ms each) no more than 500 ms ahead of the playback clock, and completes only when all has left', async () => {
      const h = await long();
      await h.send({ type: 'response.create' });
      const deltas = h.out.all('response.output_audio.delta');
      for (const d of deltas) expect(Buffer.from(d.delta as string, 'base64').length).to.be.at.most(40 * 48);
      // Nothing of the playback has passed yet: the initial burst is the bounded lead.
      expect(sentMs(h.out.events)).to.be.within(500, 540);
      expect(h.out.types()).not.to.include('response.done');
      for (let t = 0; t < 40; t++) {
        h.clock.advance(100);
        await flush();
        expect(sentMs(h.out.events)).to.be.at.most((t + 1) * 100 + 540);
      }
      expect(sentMs(h.out.events)).to.equal(4000);
      expect(h.out.last('response.done').response).to.deep.include({ status: 'completed' });
    });

    it('a cancel while deltas are paced ends the response cancelled, with no more deltas, the item cut to what was heard', async () => {
      const h = await long();
      await h.send({ type: 'response.create' });
      h.clock.advance(300);
      await flush();
      const before = h.out.all('response.output_audio.delta').length;
      await h.send({ type: 'response.cancel' });
      expect(h.out.last('response.done').response).to.deep.include({ status: 'cancelled' });
      h.clock.advance(5000);
      await flush();
      expect(h.out.all('response.output_audio.delta')).to.have.length(before);
      const item = h.out.last('response.output_item.done').item as any;
      expect(item.status).to.equal('incomplete');
      // 300 ms into "Hello there." (synthesized so far: its first 1 s): "Hello" ends at 5/12 of it (417 ms), so no word was heard whole.
      expect(item.content[0].transcript).to.equal('');
      h.clock.advance(0);
      await h.send({ type: 'conversation.item.retrieve', item_id: item.id });
      expect(h.out.last('conversation.item.retrieved').item).to.deep.include({ status: 'incomplete' });
    });

    it('keeps the words heard by the playback clock when cancelled mid-sentence', async () => {
      const h = await long();
      await h.send({ type: 'response.create' });
      for (let i = 0; i < 25; i++) {
        h.clock.advance(100);
        await flush();
      }
      await h.send({ type: 'response.cancel' });
      const item = h.out.last('response.output_item.done').item as any;
      // 2.5 s: "Hello there." (2 s) and "How" (ends at 2 s + 3/12 * 2 s = 2.5 s).
      expect(item.content[0].transcript).to.equal('Hello there. How');
      expect(h.out.last('response.output_audio_transcript.done').transcript).to.equal('Hello there. How');
      // The next model context hears what was said, not what was written.
      const lm = h.lm;
      lm.script = [{ type: 'text', delta: 'ok' }];
      await h.send({ type: 'response.create' });
      const last = lm.requests[lm.requests.length - 1]!.messages.find((m: any) => m.role === 'assistant') as any;
      expect(last.content).to.equal('Hello there. How');
    });

    it("a truncate of the item still being generated cancels its response and cuts the item there (the agents SDK's barge-in)", async () => {
      // @openai/agents-realtime with interrupt_response on sends only this truncate at speech_started,
      // expecting the server to have cancelled; it was refused ("still being generated").
      const h = await long();
      await h.send({ type: 'response.create' });
      for (let i = 0; i < 25; i++) {
        h.clock.advance(100);
        await flush();
      }
      const itemId = (h.out.last('response.output_item.added').item as any).id;
      h.out.take();
      await h.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: 2500 });
      const events = h.out.take();
      expect(events.filter((e) => e.type === 'error')).to.deep.equal([]);
      expect(events.find((e) => e.type === 'response.done')!.response).to.deep.include({ status: 'cancelled' });
      expect(events.at(-1)!).to.deep.include({ type: 'conversation.item.truncated', item_id: itemId, audio_end_ms: 2500 });
      await h.send({ type: 'conversation.item.retrieve', item_id: itemId });
      expect(h.out.last('conversation.item.retrieved').item).to.deep.include({ status: 'incomplete' });
      expect((h.out.last('conversation.item.retrieved').item as any).content[0].transcript).to.equal('Hello there. How');
      const sent = h.out.all('response.output_audio.delta').length;
      h.clock.advance(5000);
      await flush();
      expect(h.out.all('response.output_audio.delta')).to.have.length(sent);
    });

    it('a cancel while a sentence is being synthesized ends cancelled (not completed) and answers the cancel', async () => {
      let release!: () => void;
      const stuck = new FakeReplySpeaker(10);
      const speak = stuck.speak.bind(stuck);
      stuck.speak = async function* (request, signal) {
        await new Promise<void>((resolve) => {
          release = resolve;
          signal.addEventListener('abort', () => resolve());
        });
        yield* speak(request, signal);
      };
      const h = await audioSession(undefined, stuck);
      await h.send({ type: 'response.create' });
      expect(h.out.types()).to.include('response.output_audio_transcript.delta');
      expect(h.out.types()).not.to.include('response.done');
      await h.send({ type: 'response.cancel' });
      expect(h.out.last('response.done').response).to.deep.include({ status: 'cancelled' });
      expect(h.out.types()).not.to.include('response.output_audio.delta');
      release();
    });

    it('server VAD barge-in with min_interruption_duration 0 cancels a spoken reply at speech_started; a noise shorter than min_speech_duration does not', async () => {
      const vad = new EnergyVad();
      const h = createHarness({
        lm: new ScriptedLanguageModel([{ type: 'text', delta: 'Hello there. How are you?' }]),
        audio: {
          replySpeaker: new FakeReplySpeaker(4000),
          voiceActivityDetector: vad,
          speechRecognizer: new FakeStreamingRecognizer('hi'),
        },
      });
      await h.send({
        type: 'session.update',
        session: {
          model: 'svc-realtime',
          output_modalities: ['audio'],
          audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 200, min_interruption_duration: 0 } } },
        },
      });
      await h.send({ type: 'response.create' });
      h.clock.advance(300);
      await flush();
      // 60 ms of noise: under the 125 ms min_speech_duration.
      await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(60, 24000, 5000) });
      await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 0) });
      expect(h.out.types()).not.to.include('response.done');
      await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 5000) });
      const types = h.out.types();
      const started = types.indexOf('input_audio_buffer.speech_started');
      expect(started).to.be.greaterThan(0);
      expect(types.indexOf('response.done')).to.be.greaterThan(started);
      expect(h.out.all('response.done')[0]!.response).to.deep.include({ status: 'cancelled' });
      const deltas = h.out.all('response.output_audio.delta').length;
      h.clock.advance(3000);
      await flush();
      expect(
        h.out.events.filter(
          (e) => e.type === 'response.output_audio.delta' && (e as any).response_id === (h.out.all('response.done')[0]!.response as any).id,
        ),
      ).to.have.length(deltas);
    });
  });
});
