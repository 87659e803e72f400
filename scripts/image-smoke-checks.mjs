// The client half of scripts/test-image.sh: real requests to a server started from the built image.
// Plain Node (20+), no dependencies, so it runs before `npm ci` too.
//   node scripts/image-smoke-checks.mjs --base http://127.0.0.1:8080 --key svc-... --photo face.jpg --server-pid PID --wyoming-port 10200
// Checks, in order: /healthz, /readyz (with the recognizer), a request without a key (refused in the
// spec's error shape), speech (mp3 through the image's ffmpeg), a transcription of synthesized speech,
// a live video stream (fMP4, then the same video stored), Wyoming's describe, and last SIGTERM to the server's PID 1
// while a streamed speech response is in flight (`docker stop`): the response must arrive whole and
// the server must refuse new connections. Prints "N passed, N failed" last; exits 1 on any failure.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    key: { type: 'string' },
    photo: { type: 'string' },
    'server-pid': { type: 'string' },
    'wyoming-port': { type: 'string' },
  },
});
for (const name of ['base', 'key', 'photo', 'server-pid', 'wyoming-port']) if (!args[name]) throw new Error(`missing --${name}`);
const base = args.base;
const auth = { Authorization: `Bearer ${args.key}` };

const results = [];
const serverPid = Number(args['server-pid']);
let stopSent = false;
function stopServer() {
  stopSent = true;
  process.kill(serverPid, 'SIGTERM');
}
async function check(name, body) {
  const started = Date.now();
  try {
    const detail = await body();
    results.push(true);
    console.log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)${detail ? `: ${detail}` : ''}`);
  } catch (err) {
    results.push(false);
    console.log(`FAIL ${name}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
function expect(condition, message) {
  if (!condition) throw new Error(message);
}
const postJson = (path, body, headers = auth) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
async function bytesOf(res) {
  return Buffer.from(await res.arrayBuffer());
}
/** Throws with the status and the start of the body unless the answer is a 200 (the body is left unread then). */
async function expectOk(res) {
  if (res.status !== 200) throw new Error(`${res.status} ${(await res.text()).slice(0, 300)}`);
}

/** Top-level ISO BMFF boxes (ftyp, moov, moof, mdat...) of an MP4 byte stream. */
function topLevelBoxes(bytes) {
  const boxes = [];
  for (let at = 0; at + 8 <= bytes.length;) {
    const size = bytes.readUInt32BE(at);
    boxes.push(bytes.toString('latin1', at + 4, at + 8));
    if (size < 8) break;
    at += size;
  }
  return boxes;
}

const SENTENCE = 'Seven green apples are on the table.';
const SPEECH_WORDS = SENTENCE.toLowerCase()
  .replace(/[^a-z ]/g, '')
  .split(' ');
const LONG_TEXT = Array.from({ length: 6 }, (_, i) => `This is sentence number ${i + 1} of a streamed answer that must arrive whole.`).join(
  ' ',
);

await check('GET /healthz', async () => {
  const res = await fetch(`${base}/healthz`);
  await expectOk(res);
  expect((await res.json()).status === 'ok', 'status is not ok');
});

await check("GET /readyz names the image's speech recognizer", async () => {
  const res = await fetch(`${base}/readyz`);
  const body = await res.json();
  expect(res.status === 200 && body.status === 'ready', JSON.stringify(body));
  // Available: "pocketsphinx, streaming decoders (...)"; missing: "unavailable: the pocketsphinx ... is not installed".
  expect(/^pocketsphinx\b/.test(body.details?.speech_recognition ?? ''), `no recognizer: ${JSON.stringify(body.details)}`);
  return body.details.speech_recognition;
});

await check('POST /v1/audio/speech without a key: 401 in the error shape', async () => {
  const res = await postJson('/v1/audio/speech', { input: 'No key.' }, {});
  const body = await res.json();
  expect(res.status === 401, `status ${res.status}`);
  expect(typeof body.error?.message === 'string' && typeof body.error?.type === 'string', JSON.stringify(body));
  return body.error.type;
});

await check("POST /v1/audio/speech (mp3, encoded by the image's ffmpeg)", async () => {
  const res = await postJson('/v1/audio/speech', { input: SENTENCE, response_format: 'mp3' });
  await expectOk(res);
  expect(res.headers.get('content-type') === 'audio/mpeg', `content-type ${res.headers.get('content-type')}`);
  const mp3 = await bytesOf(res);
  const framed = mp3.toString('latin1', 0, 3) === 'ID3' || (mp3[0] === 0xff && (mp3[1] & 0xe0) === 0xe0);
  expect(framed && mp3.length > 4000, `not an mp3 of speech (${mp3.length} bytes, starts ${mp3.subarray(0, 4).toString('hex')})`);
  return `${mp3.length} bytes`;
});

await check('POST /v1/audio/transcriptions of synthesized speech (pocketsphinx)', async () => {
  const speech = await postJson('/v1/audio/speech', { input: SENTENCE, response_format: 'wav' });
  await expectOk(speech);
  const form = new FormData();
  form.set('file', new Blob([await bytesOf(speech)], { type: 'audio/wav' }), 'speech.wav');
  form.set('model', 'whisper-1');
  const res = await fetch(`${base}/v1/audio/transcriptions`, { method: 'POST', headers: auth, body: form });
  await expectOk(res);
  const { text } = await res.json();
  const heard = String(text).toLowerCase().split(/\W+/);
  const recognized = SPEECH_WORDS.filter((w) => heard.includes(w));
  expect(recognized.length * 2 >= SPEECH_WORDS.length, `heard "${text}" for "${SENTENCE}"`);
  return `"${text}"`;
});

await check('POST /v1/videos/stream (live fMP4), then the same video stored', async () => {
  const photo = `data:image/jpeg;base64,${readFileSync(args.photo).toString('base64')}`;
  const res = await postJson('/v1/videos/stream', { ref_image: photo, input_tts: { input: 'Hello from the container image.' } });
  await expectOk(res);
  expect(res.headers.get('content-type') === 'video/mp4', `content-type ${res.headers.get('content-type')}`);
  const id = res.headers.get('x-video-id');
  expect(/^video_/.test(id ?? ''), `X-Video-Id ${id}`);
  const streamed = await bytesOf(res);
  const boxes = topLevelBoxes(streamed);
  expect(boxes[0] === 'ftyp' && boxes[1] === 'moov' && boxes.includes('moof'), `boxes ${boxes.slice(0, 8).join(',')}`);
  let video;
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
    video = await (await fetch(`${base}/v1/videos/${id}`, { headers: auth })).json();
    if (video.status === 'completed' || video.status === 'failed') break;
  }
  expect(video?.status === 'completed', `video ${JSON.stringify(video)}`);
  const stored = await bytesOf(await fetch(`${base}/v1/videos/${id}/content`, { headers: auth }));
  expect(stored.equals(streamed), `stored ${stored.length} bytes, streamed ${streamed.length}`);
  return `${streamed.length} bytes, ${boxes.filter((b) => b === 'moof').length} fragments`;
});

await check('Wyoming describe on the optional port (as Home Assistant asks)', async () => {
  const line = await new Promise((resolve, reject) => {
    const socket = connect(Number(args['wyoming-port']), '127.0.0.1', () => socket.write('{"type":"describe"}\n'));
    let text = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
      if (text.includes('\n')) {
        socket.destroy();
        resolve(text.slice(0, text.indexOf('\n')));
      }
    });
    socket.on('error', reject);
  });
  const header = JSON.parse(line);
  expect(header.type === 'info', `answered ${line.slice(0, 200)}`);
  return `info, ${header.data_length ?? 0} bytes of data`;
});

await check('SIGTERM to PID 1 (docker stop) drains a streamed response, then refuses connections', async () => {
  const streamed = (signal) =>
    postJson('/v1/audio/speech', { input: LONG_TEXT, response_format: 'pcm', stream: true }).then(async (res) => {
      await expectOk(res);
      const reader = res.body.getReader();
      let bytes = 0;
      for (let first = true; ; first = false) {
        const { done, value } = await reader.read();
        if (done) return bytes;
        bytes += value.length;
        if (first && signal) signal();
      }
    });
  const whole = await streamed();
  const drained = await streamed(stopServer);
  expect(drained === whole, `the response during shutdown had ${drained} bytes, ${whole} without it`);
  const after = await fetch(`${base}/healthz`).then(
    (r) => `answered ${r.status}`,
    () => 'refused',
  );
  expect(after === 'refused', `a new request after the drain was ${after}`);
  return `${drained} bytes of PCM, whole`;
});

// The caller checks the exit after SIGTERM: send it even when a check failed before the last one.
if (!stopSent) stopServer();
const passed = results.filter(Boolean).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(passed === results.length ? 0 : 1);
