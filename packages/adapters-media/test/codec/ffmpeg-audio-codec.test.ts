import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { RESPONSE_FORMATS, type ResponseFormat } from '@svc/core';
import { FfmpegAudioCodec } from '../../src/index.js';
import { collect, isRunning, sine, waitUntilGone } from '@svc/adapters-testing';

const RATE = 24000;

async function* chunked(samples: Int16Array, size = 4800): AsyncGenerator<Int16Array> {
  for (let i = 0; i < samples.length; i += size) yield samples.subarray(i, i + size);
}

/** Endless 200 ms tone chunks, counting how many were pulled. */
function endless(counter: { pulled: number }): AsyncGenerator<Int16Array> {
  const chunk = sine(220, RATE, 0.2);
  return (async function* () {
    for (;;) {
      counter.pulled++;
      yield chunk;
    }
  })();
}

describe('FfmpegAudioCodec (real ffmpeg)', function () {
  this.timeout(30000);
  const pids: number[] = [];
  const codec = new FfmpegAudioCodec({ onSpawn: (pid) => pids.push(pid) });

  afterEach(async () => {
    for (const pid of pids.splice(0)) await waitUntilGone(pid);
  });

  for (const format of RESPONSE_FORMATS.filter((f) => f !== 'pcm') as ResponseFormat[]) {
    it(`${format}: encodes 3 s of audio that decodes back to 3 s (±10 %)`, async () => {
      const bytes = await collect(codec.encode(format, RATE, chunked(sine(220, RATE, 3))));
      expect(bytes.length).to.be.greaterThan(100);
      const decoded = await codec.decode(bytes, 16000);
      expect(decoded.sampleRate).to.equal(16000);
      expect(decoded.samples.length / 16000).to.be.within(2.7, 3.3);
      expect(decoded.format).to.equal(format === 'aac' ? 'aac' : format);
    });
  }

  it('pcm: yields little-endian bytes directly, no encoder', async () => {
    const bytes = await collect(codec.encode('pcm', RATE, chunked(Int16Array.from([1, -2, 300]))));
    expect([...bytes]).to.deep.equal([1, 0, 0xfe, 0xff, 0x2c, 0x01]);
    expect(pids).to.have.length(0);
  });

  it('wav: a 44-byte header with correct RIFF sizes followed by the samples', async () => {
    const bytes = await collect(codec.encode('wav', RATE, chunked(sine(220, RATE, 1))));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect(Buffer.from(bytes.subarray(0, 4)).toString()).to.equal('RIFF');
    expect(view.getUint32(4, true)).to.equal(bytes.length - 8);
    expect(view.getUint32(24, true)).to.equal(RATE);
    expect(view.getUint32(40, true)).to.equal(RATE * 2);
    expect(bytes.length).to.equal(44 + RATE * 2);
  });

  it('streams: encoded bytes come out before the input has ended', async () => {
    let inputDone = false;
    async function* slow(): AsyncGenerator<Int16Array> {
      for (let i = 0; i < 20; i++) {
        yield sine(220, RATE, 0.5);
        await new Promise((r) => setTimeout(r, 30));
      }
      inputDone = true;
    }
    let firstChunkBeforeEnd = false;
    for await (const chunk of codec.encode('mp3', RATE, slow())) {
      if (chunk.length && !inputDone) firstChunkBeforeEnd = true;
    }
    expect(firstChunkBeforeEnd).to.equal(true);
  });

  it('backpressure: a consumer that stops reading stops the input from being pulled', async () => {
    const counter = { pulled: 0 };
    const iterator = codec.encode('flac', RATE, endless(counter))[Symbol.asyncIterator]();
    await iterator.next();
    await new Promise((r) => setTimeout(r, 1000));
    const pulledWhileIdle = counter.pulled;
    await new Promise((r) => setTimeout(r, 500));
    // Bounded by pipe buffers (a few hundred kB), and no longer growing.
    expect(pulledWhileIdle).to.be.below(300);
    expect(counter.pulled - pulledWhileIdle).to.be.below(3);
    await iterator.return?.();
  });

  it('early return() by the consumer kills ffmpeg: no process left', async () => {
    const counter = { pulled: 0 };
    for await (const chunk of codec.encode('mp3', RATE, endless(counter))) {
      if (chunk.length) break;
    }
    expect(pids).to.have.length(1);
    expect(isRunning(pids[0]!)).to.equal(false);
  });

  it('abort kills ffmpeg and rejects with AbortError', async () => {
    const controller = new AbortController();
    const counter = { pulled: 0 };
    const seen: Uint8Array[] = [];
    let error: Error | null = null;
    try {
      for await (const chunk of codec.encode('opus', RATE, endless(counter), controller.signal)) {
        seen.push(chunk);
        if (seen.length === 1) setTimeout(() => controller.abort(), 20);
      }
    } catch (err) {
      error = err as Error;
    }
    expect(error?.name).to.equal('AbortError');
    expect(isRunning(pids[0]!)).to.equal(false);
  });

  it('an input that fails kills ffmpeg and surfaces the input’s error', async () => {
    async function* failing(): AsyncGenerator<Int16Array> {
      yield sine(220, RATE, 0.5);
      throw new Error('synthesizer exploded');
    }
    let error: Error | null = null;
    try {
      await collect(codec.encode('aac', RATE, failing()));
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).to.equal('synthesizer exploded');
    expect(isRunning(pids[0]!)).to.equal(false);
  });

  it('decode rejects a text file and an empty buffer with InvalidAudioError before starting ffmpeg', async () => {
    for (const bytes of [Buffer.from('Hello, this is not audio at all.\n'), new Uint8Array(0)]) {
      let error: Error | null = null;
      try {
        await codec.decode(bytes, 16000);
      } catch (err) {
        error = err as Error;
      }
      expect(error?.name).to.equal('InvalidAudioError');
    }
    expect(pids).to.have.length(0);
  });

  it('decode turns an ffmpeg failure (audio magic, garbage body) into InvalidAudioError', async () => {
    const fake = Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(2000, 7)]);
    let error: Error | null = null;
    try {
      await codec.decode(fake, 16000);
    } catch (err) {
      error = err as Error;
    }
    expect(error?.name).to.equal('InvalidAudioError');
  });

  it('decode honours abort', async () => {
    const wav = await collect(codec.encode('wav', RATE, chunked(sine(220, RATE, 30))));
    let error: Error | null = null;
    try {
      await codec.decode(wav, 16000, AbortSignal.abort());
    } catch (err) {
      error = err as Error;
    }
    expect(error?.name).to.equal('AbortError');
  });

  it('decode stops at maxSeconds: an hour of compressed silence never becomes an hour of PCM', async () => {
    const hour = new Int16Array(RATE * 60); // one minute, encoded 60 times below
    const flac = await collect(
      codec.encode(
        'flac',
        RATE,
        (async function* () {
          for (let i = 0; i < 60; i++) yield hour;
        })(),
      ),
    );
    expect(flac.length).to.be.lessThan(2_000_000);
    const decoded = await codec.decode(flac, 16000, undefined, { maxSeconds: 121 });
    expect(decoded.samples.length / 16000).to.be.closeTo(121, 0.05);
  });

  it('decode refuses playlists that would make ffmpeg open other protocols', async () => {
    // Starts like an MP3 (ID3 tag) so format detection lets it through to ffmpeg.
    const id3 = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0]);
    const playlist = Buffer.concat([
      id3,
      Buffer.from('#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10.0,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n'),
    ]);
    let error: Error | null = null;
    try {
      await codec.decode(playlist, 16000);
    } catch (err) {
      error = err as Error;
    }
    expect(error?.name).to.equal('InvalidAudioError');
  });

  it('decode: a playlist naming a local Unix socket never reaches it (ffmpeg talks to this process over unix: sockets)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-victim-'));
    const path = join(dir, 'victim.sock');
    let connections = 0;
    const victim = createServer((s) => {
      connections++;
      s.end(Buffer.alloc(100_000, 0xff));
    });
    await new Promise<void>((resolve) => victim.listen(path, resolve));
    try {
      const id3 = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0]);
      for (const url of [`unix:${path}`, `async:unix:${path}`]) {
        const playlist = Buffer.concat([id3, Buffer.from(`#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10.0,\n${url}\n#EXT-X-ENDLIST\n`)]);
        const error = await codec.decode(playlist, 16000).then(
          () => null,
          (err: Error) => err,
        );
        expect(error?.name, url).to.equal('InvalidAudioError');
      }
      expect(connections).to.equal(0);
    } finally {
      victim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
