const { startBenchServer, timedSpeech, percentile } = await import('./dist/bench/harness.js');
const { TEXT_300 } = await import('./dist/bench/speech.js');
const { SPEECH_TOKENS, validateSpeechRequest, NEUTRAL_PROSODY } = await import('@svc/core');
const bench = await startBenchServer({ SVC_ASR_ENGINE: 'off' });
const synth = bench.server.services.get(SPEECH_TOKENS.SynthesizeSpeech);
const catalog = bench.server.services.get(SPEECH_TOKENS.VoiceCatalog);
const voice = catalog.defaultFor('en'); const engine = catalog.engineFor(voice);
const body = { input: TEXT_300, response_format: 'pcm', stream: true };
for (let i = 0; i < 5; i++) await timedSpeech(bench, body);
const N = 25; const http = [], inproc = [], eng = [], eng2 = [];
for (let i = 0; i < N; i++) {
  http.push((await timedSpeech(bench, body)).ttfbMs);
  let t0 = performance.now();
  const r = await synth.execute(validateSpeechRequest(body), null);
  const it = r.body[Symbol.asyncIterator](); await it.next(); inproc.push(performance.now() - t0); await it.return?.();
  t0 = performance.now();
  await engine.synthesize({ text: 'The morning train was late again,', voice, prosody: NEUTRAL_PROSODY, sampleRate: 24000, wordTimings: false }); eng.push(performance.now() - t0);
  t0 = performance.now();
  await engine.synthesize({ text: 'The morning train', voice, prosody: NEUTRAL_PROSODY, sampleRate: 24000, wordTimings: false }); eng2.push(performance.now() - t0);
}
const p = (x) => `${percentile(x, 50).toFixed(1)} (min ${Math.min(...x).toFixed(1)})`;
console.log('http ttfb', p(http), '| in-process first chunk', p(inproc), '| engine first clause', p(eng), '| engine 3 words', p(eng2));
await bench.close(); process.exit(0);
