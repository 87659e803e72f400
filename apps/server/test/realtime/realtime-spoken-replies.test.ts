// @test-tier light: spoken replies at the listener's pace
import { expect } from 'chai';
import { openSession, userText, type RealtimeClient, type ServerEvent, takeViolations } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';
import { edgeSilenceMs } from '../helpers/spoken-audio.js';

async function spokenResponse(client: RealtimeClient): Promise<{ events: ServerEvent[]; audio: Buffer }> {
  client.send({ type: 'response.create' });
  const events: ServerEvent[] = [];
  for (;;) {
    const event = await client.next(30_000);
    events.push(event);
    if (event.type === 'response.done') break;
  }
  const audio = Buffer.concat(events.filter((e) => e.type === 'response.output_audio.delta').map((e) => Buffer.from(e.delta, 'base64')));
  return { events, audio };
}

const rms = (pcm: Int16Array) => Math.sqrt(pcm.reduce((s, x) => s + x * x, 0) / Math.max(1, pcm.length)) / 32768;

/** Audio sessions speak their replies with the real speech engines (the same use case as REST). */
describe('realtime e2e: spoken replies', function () {
  this.timeout(60_000);
  // Every server event these clients saw conforms to the GA schema (and none is never-emitted).
  afterEach(() => expect(takeViolations()).to.deep.equal([]));
  let s: RealtimeTestServer;
  before(async () => (s = await startRealtimeServer()));
  after(async () => s?.close());

  it('streams 24 kHz PCM audio deltas with transcript-length marks, then truncates at a playback position', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey, { output_modalities: ['audio'] });
    client.send({
      type: 'conversation.item.create',
      item: userText('Please repeat after me. The quick brown fox jumps over the lazy dog.'),
    });
    await client.next();
    const { events, audio } = await spokenResponse(client);
    const pcm = new Int16Array(audio.buffer, audio.byteOffset, audio.length / 2);
    const seconds = pcm.length / 24000;
    expect(seconds).to.be.within(1.5, 20);
    expect(rms(pcm)).to.be.greaterThan(0.02);

    const marks = events.filter((e) => e.type === 'response.output_audio_transcript.length');
    expect(marks.length).to.be.at.least(1);
    const lengths = marks.map((m) => m.length_ms as number);
    expect(lengths).to.deep.equal([...lengths].sort((a, b) => a - b));
    expect(lengths.at(-1)!).to.be.closeTo(seconds * 1000, 50);
    const done = events.at(-1)!;
    expect(done.response.status).to.equal('completed');
    expect(done.response.usage).to.equal(null);

    const itemId = done.response.output[0].id;
    client.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: 500 });
    const truncated = await client.next();
    expect(truncated).to.include({ type: 'conversation.item.truncated', item_id: itemId, audio_end_ms: 500 });
    client.send({ type: 'conversation.item.retrieve', item_id: itemId });
    const retrieved = await client.next();
    const fullTranscript = done.response.output[0].content[0].transcript as string;
    expect(retrieved.item.content[0].transcript.length).to.be.lessThan(fullTranscript.length);
    await client.close();
  });

  it('a reply starts with the voice: its first delta carries sound within 30 ms, and it ends with the voice', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey, { output_modalities: ['audio'] });
    client.send({ type: 'conversation.item.create', item: userText('Hello there. How are you today?') });
    await client.next();
    const { events, audio } = await spokenResponse(client);
    const pcm = new Int16Array(audio.buffer, audio.byteOffset, audio.length / 2);
    // Flite pads each sentence with ~170-230 ms of silence: the reply itself must not start or end with it.
    const edges = edgeSilenceMs(pcm, 24000);
    expect(edges.leading, 'leading silence (ms)').to.be.at.most(30);
    expect(edges.trailing, 'trailing silence (ms)').to.be.at.most(30);
    const firstDelta = Buffer.from(events.find((e) => e.type === 'response.output_audio.delta')!.delta, 'base64');
    expect(edges.leading * 24 * 2, 'the first delta carries sound').to.be.below(firstDelta.length);
    await client.close();
  });

  it('speaks in the session format: G.711 mu-law at 8 kHz is one byte per sample', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey, {
      output_modalities: ['audio'],
      audio: { input: { turn_detection: null }, output: { format: { type: 'audio/pcmu' } } },
    });
    client.send({ type: 'conversation.item.create', item: userText('Say something short.') });
    await client.next();
    const { events, audio } = await spokenResponse(client);
    const lastMark = events.filter((e) => e.type === 'response.output_audio_transcript.length').at(-1)!;
    expect(audio.length / 8000).to.be.closeTo(lastMark.length_ms / 1000, 0.05);
    // mu-law silence is 0xFF/0x7F; speech spreads over many byte values.
    expect(new Set(audio).size).to.be.greaterThan(64);
    await client.close();
  });
});
