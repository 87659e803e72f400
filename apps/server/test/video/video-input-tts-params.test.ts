import { expect } from 'chai';
import { json, postJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { wavFile } from '../helpers/wav.js';
import { dataUri, samplePhoto } from './video-helpers.js';

/** Half a second of a tone: real audio, too short to clone a voice from. */
function tone(seconds: number, rate = 16000): Int16Array {
  const out = new Int16Array(Math.round(seconds * rate));
  for (let i = 0; i < out.length; i++) out[i] = Math.round(6000 * Math.sin((2 * Math.PI * 180 * i) / rate));
  return out;
}

/**
 * Issue 17, defect 5: in a video request `input` is the driving audio, so an error raised inside the
 * nested speech request must name its field by the dotted path (`input_tts.input`), never `input`.
 */
describe('/v1/videos: errors inside input_tts name the dotted param (real server)', function () {
  this.timeout(120_000);
  let server: TestServer;
  const photo = dataUri(samplePhoto(1), 'image/jpeg');

  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ['input over 5000 characters', { input: 'a'.repeat(5001) }, 'input_too_long', 'input_tts.input'],
    ['input only whitespace', { input: '   ' }, 'input_empty', 'input_tts.input'],
    ['input with nothing to speak', { input: '\u200b\u200b' }, 'input_not_speakable', 'input_tts.input'],
    ['input not a string', { input: 42 }, 'invalid_parameter', 'input_tts.input'],
    ['an unknown voice', { input: 'Hi', voice: 'voice_nobody' }, 'voice_not_found', 'input_tts.voice'],
    ['an empty voice', { input: 'Hi', voice: ' ' }, 'invalid_parameter', 'input_tts.voice'],
    ['voice together with ref_audio', { input: 'Hi', voice: 'default', ref_audio: 'aGVsbG8=' }, 'voice_conflict', 'input_tts.voice'],
    ['ref_text without ref_audio', { input: 'Hi', ref_text: 'hello' }, 'invalid_parameter', 'input_tts.ref_text'],
    ['ref_audio that is not base64', { input: 'Hi', ref_audio: '%%%not base64%%%' }, 'invalid_base64', 'input_tts.ref_audio'],
    [
      'ref_audio that is not audio',
      { input: 'Hi', ref_audio: Buffer.from('just some text, not audio').toString('base64') },
      'invalid_audio',
      'input_tts.ref_audio',
    ],
    [
      'ref_audio too short to clone',
      { input: 'Hi', ref_audio: dataUri(wavFile(tone(0.5), 16000), 'audio/wav') },
      'audio_too_short',
      'input_tts.ref_audio',
    ],
    [
      'ref_audio at a private address',
      { input: 'Hi', ref_audio: 'http://127.0.0.1:1/voice.wav' },
      'media_url_not_allowed',
      'input_tts.ref_audio',
    ],
    ['ref_audio with a file: URL', { input: 'Hi', ref_audio: 'file:///etc/passwd' }, 'invalid_media_url', 'input_tts.ref_audio'],
    ['a wrong model', { input: 'Hi', model: 'tts-1' }, 'invalid_parameter', 'input_tts.model'],
    ['a wrong response_format', { input: 'Hi', response_format: 'midi' }, 'invalid_parameter', 'input_tts.response_format'],
    ['speed out of range', { input: 'Hi', speed: 9 }, 'invalid_parameter', 'input_tts.speed'],
    ['a malformed tn_language', { input: 'Hi', tn_language: 'not a tag' }, 'invalid_language_tag', 'input_tts.tn_language'],
    ['an unknown field', { input: 'Hi', pitch: 2 }, 'unknown_parameter', 'input_tts.pitch'],
    ['a nested stream', { input: 'Hi', stream: true, response_format: 'pcm' }, 'input_tts_stream_unsupported', 'input_tts.stream'],
  ];

  for (const [what, inputTts, type, param] of cases) {
    it(`${what}: ${type} with param ${param} (create and stream)`, async () => {
      for (const path of ['/v1/videos', '/v1/videos/stream']) {
        const res = await json(await postJson(`${server.baseUrl}${path}`, { ref_image: photo, input_tts: inputTts }, server.apiKey));
        const error = res.body.error ?? {};
        expect({ status: res.status, type: error.type, param: error.param }, `${path}: ${error.message}`).to.deep.equal({
          status: type === 'voice_not_found' ? 404 : 400,
          type,
          param,
        });
      }
    });
  }
});
