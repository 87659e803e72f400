// Embedding the core in another Node app: speech through the SynthesizeSpeech use case with the
// embedded engines, no HTTP server, no database.
//
//   npm run build
//   node examples/synthesize-in-process.mjs "Hello from inside my app." hello.wav
//
import { writeFileSync } from 'node:fs';
import { SynthesizeSpeech, VoiceCatalog, validateSpeechRequest } from '@svc/core';
import { EspeakSpeechSynthesizer, FliteSpeechSynthesizer, ShortTextLanguageDetector } from '@svc/adapters-speech-synthesis';
import { FfmpegAudioCodec } from '@svc/adapters-media';

const [text = 'Hello from inside my app.', out = 'speech.wav'] = process.argv.slice(2);
const format = out.split('.').pop();

const engines = [await FliteSpeechSynthesizer.create({ poolSize: 1 }), await EspeakSpeechSynthesizer.create()];
try {
  // The server's detector: the script, then n-grams with a prior for English on short sentences.
  const speech = new SynthesizeSpeech(new VoiceCatalog(engines), new FfmpegAudioCodec(), await ShortTextLanguageDetector.create());
  // The same rules as the REST endpoint: defaults, limits, exclusive fields.
  const request = validateSpeechRequest({ input: text, response_format: format });
  const result = await speech.execute(request, null);
  const chunks = [];
  for await (const chunk of result.body) chunks.push(chunk);
  writeFileSync(out, Buffer.concat(chunks));
  const seconds = result.stats.samples / result.sampleRate;
  console.log(`wrote ${out}: ${seconds.toFixed(2)} s of ${result.language} speech, voice ${result.voice.name}`);
} finally {
  await Promise.all(engines.map((e) => e.close()));
}
