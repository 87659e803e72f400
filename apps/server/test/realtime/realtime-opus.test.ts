// @test-tier light: streams opus at real-time pace
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { OpusscriptOpusCodec } from '@svc/adapters-media';
import { openSession, userText, type RealtimeClient, type ServerEvent, takeViolations } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';
import { RECOGNIZER } from '../helpers/pocketsphinx.js';

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const CLIP_ID = 'sense_and_sensibility_01_austen_64kb-0880';

const codec = new OpusscriptOpusCodec();
const OPUS_20MS = { type: 'audio/opus', frame_size_ms: 20 };

/** The clip's 16 kHz samples (the data chunk of the WAV) and its reference words. */
function clip(): { samples: Int16Array; words: string[] } {
  const wav = readFileSync(`${LIBRIVOX}/${CLIP_ID}.wav`);
  const data = wav.subarray(wav.indexOf('data') + 8);
  const samples = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + (data.length & ~1)));
  const line = readFileSync(`${LIBRIVOX}/transcription`, 'utf8')
    .split('\n')
    .find((l) => l.includes(`(${CLIP_ID})`))!;
  const words = /^<s> (.*) <\/s>/.exec(line.trim())![1]!.split(' ');
  return { samples, words };
}

/** 16 kHz -> 48 kHz by linear interpolation. */
function upsample3(samples: Int16Array): Int16Array {
  const out = new Int16Array(samples.length * 3);
  for (let i = 0; i < samples.length; i++) {
    const a = samples[i]!;
    const b = samples[Math.min(i + 1, samples.length - 1)]!;
    for (let k = 0; k < 3; k++) out[3 * i + k] = Math.round(a + ((b - a) * k) / 3);
  }
  return out;
}

const rms = (pcm: Int16Array) => Math.sqrt(pcm.reduce((s, x) => s + x * x, 0) / Math.max(1, pcm.length)) / 32768;

async function collectUntil(client: RealtimeClient, type: string, timeoutMs = 30_000): Promise<ServerEvent[]> {
  const events: ServerEvent[] = [];
  for (;;) {
    const event = await client.next(timeoutMs);
    events.push(event);
    if (event.type === type) return events;
  }
}

/** `audio/opus` both ways through the real server, its speech engines and the opusscript codec. */
describe('realtime e2e: opus audio', function () {
  this.timeout(60_000);
  // Every server event these clients saw conforms to the GA schema (and none is never-emitted).
  afterEach(() => expect(takeViolations()).to.deep.equal([]));
  let s: RealtimeTestServer;
  before(async () => (s = await startRealtimeServer()));
  after(async () => s?.close());

  it('speaks replies as 20 ms opus packets, one per audio delta, that decode to the announced length', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey, {
      output_modalities: ['audio'],
      audio: { input: { turn_detection: null }, output: { format: OPUS_20MS } },
    });
    client.send({
      type: 'conversation.item.create',
      item: userText('Please repeat after me. The quick brown fox jumps over the lazy dog.'),
    });
    await client.until('conversation.item.added');
    client.send({ type: 'response.create' });
    const events = await collectUntil(client, 'response.done');
    expect(events.filter((e) => e.type === 'error')).to.deep.equal([]);
    expect(events.at(-1)!.response.status).to.equal('completed');

    const packets = events
      .filter((e) => e.type === 'response.output_audio.delta')
      .map((e) => new Uint8Array(Buffer.from(e.delta, 'base64')));
    expect(packets.length).to.be.greaterThan(50);
    for (const packet of packets) expect(packet.length).to.be.within(1, 1275);
    const decoded = await codec.decode(packets, 20);
    expect(decoded.sampleRate).to.equal(48000);
    // One 20 ms frame (960 samples at 48 kHz) per packet.
    expect(decoded.samples.length).to.equal(packets.length * 960);
    expect(rms(decoded.samples)).to.be.greaterThan(0.02);

    const marks = events.filter((e) => e.type === 'response.output_audio_transcript.length');
    expect(marks.length).to.be.at.least(1);
    const decodedMs = (decoded.samples.length / 48000) * 1000;
    console.log(`      ${packets.length} opus packets = ${decodedMs} ms decoded; last length mark ${marks.at(-1)!.length_ms} ms`);
    expect(decodedMs).to.be.closeTo(marks.at(-1)!.length_ms as number, 60);
    // No audio delta after output_audio.done.
    const doneAt = events.findIndex((e) => e.type === 'response.output_audio.done');
    expect(events.slice(doneAt).some((e) => e.type === 'response.output_audio.delta')).to.equal(false);
    await client.close();
  });

  it('takes opus input, one packet per append: committed, added and transcribed', async () => {
    const { samples, words } = clip();
    const pcm48k = upsample3(samples);
    const encoder = codec.createEncoder(20);
    const packets = [...encoder.encode(pcm48k), ...encoder.flush()];
    expect(packets).to.have.length(Math.ceil(pcm48k.length / 960));

    const { client } = await openSession(s.wsUrl, s.apiKey, {
      audio: { input: { format: OPUS_20MS, turn_detection: null, transcription: { model: 'svc-stt-3.1' } } },
    });
    for (const packet of packets) client.send({ type: 'input_audio_buffer.append', audio: Buffer.from(packet).toString('base64') });
    client.send({ type: 'input_audio_buffer.commit' });
    const committed = await client.next(10_000);
    expect(committed.type).to.equal('input_audio_buffer.committed');
    const added = await client.next(10_000);
    expect(added.type).to.equal('conversation.item.added');
    expect(added.item.id).to.equal(committed.item_id);
    expect(added.item.content).to.deep.equal([{ type: 'input_audio', transcript: '' }]);

    const { event: completed, skipped } = await client.until('conversation.item.input_audio_transcription.completed', 30_000);
    expect(skipped.filter((e) => e.type === 'error')).to.deep.equal([]);
    expect(completed.item_id).to.equal(committed.item_id);
    expect(completed.transcript).to.be.a('string');
    expect(completed.usage.seconds).to.be.closeTo(packets.length * 0.02, 0.001);
    console.log(`      heard "${completed.transcript}" for "${words.join(' ')}"`);
    if (existsSync(RECOGNIZER)) {
      const heard = new Set((completed.transcript as string).toLowerCase().split(/\s+/));
      const matching = new Set(words.filter((w) => heard.has(w)));
      expect(matching.size, `heard "${completed.transcript}" for "${words.join(' ')}"`).to.be.at.least(3);
    }
    await client.close();
  });

  it('refuses a corrupt opus packet at its append (invalid_value, param audio) and transcribes the rest', async () => {
    const encoder = codec.createEncoder(20);
    const packets = [...encoder.encode(upsample3(clip().samples.subarray(0, 16000))), ...encoder.flush()];
    packets.splice(10, 0, Uint8Array.of(0x03, 0x00)); // code-3 packet with zero frames
    const { client } = await openSession(s.wsUrl, s.apiKey, {
      audio: { input: { format: OPUS_20MS, turn_detection: null, transcription: { model: 'svc-stt-3.1' } } },
    });
    for (const packet of packets)
      client.send({
        type: 'input_audio_buffer.append',
        event_id: `a${packets.indexOf(packet)}`,
        audio: Buffer.from(packet).toString('base64'),
      });
    client.send({ type: 'input_audio_buffer.commit' });
    // Packets are decoded as they arrive: the corrupt one is refused at its append, the rest is kept.
    const { event: error } = await client.until('error', 10_000);
    expect(error.error).to.deep.include({ type: 'invalid_request_error', code: 'invalid_value', param: 'audio', event_id: 'a10' });
    expect(error.error.message).to.match(/^Opus packet 11 \(2 bytes\) could not be decoded/);
    const { event: completed } = await client.until('conversation.item.input_audio_transcription.completed', 10_000);
    expect(completed.transcript).to.be.a('string');
    await client.close();
  });
});
