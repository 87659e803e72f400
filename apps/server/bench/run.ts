import { startBenchServer } from './harness.js';
import { benchSpeech } from './speech.js';

type Bench = (ctx: { baseUrl: string; wsUrl: string; apiKey: string; server: unknown }) => Promise<Record<string, number | string>>;

/**
 * `npm run bench [-- speech voices realtime wyoming]`: runs each capability's benchmark against the real
 * server on this machine and prints ratios and percentiles (numbers, not pass/fail).
 */
async function main(): Promise<void> {
  const wanted = new Set(process.argv.slice(2));
  const suites: Array<[string, () => Promise<Bench>]> = [
    ['speech', async () => benchSpeech as unknown as Bench],
    ['speech-ttfb', async () => (await import('./speech.js')).benchSpeechFirstByte as unknown as Bench],
    ['speech-sse', async () => (await import('./speech-sse.js')).benchSpeechSse as unknown as Bench],
    // Starts its own server processes (the npm start entry) and reads their RSS.
    ['footprint', async () => (await import('./footprint.js')).benchFootprint as unknown as Bench],
    // Starts its own server process: RSS after bursts of abandoned requests (leak or settling cache?).
    ['aborted-bursts', async () => (await import('./aborted-bursts.js')).benchAbortedBursts as unknown as Bench],
    ['voices', async () => (await import('./voices.js')).benchVoices as Bench],
    ['realtime', async () => (await import('./realtime.js')).benchRealtime as Bench],
    ['voice-loop', async () => (await import('./voice-loop.js')).benchVoiceLoop as Bench],
    ['voice-wer', async () => (await import('./voice-wer.js')).benchVoiceWer as Bench],
    // Starts its own server process: last loud 10 ms of speech -> first reply sound, per turn detection.
    ['turn-latency', async () => (await import('./turn-latency.js')).benchTurnLatency as unknown as Bench],
    // Its own servers: an end-of-turn model's decisions on the recordings against the rule's (SVC_BENCH_TURN_MODEL).
    ['turn-model', async () => (await import('./turn-model.js')).benchTurnModel as unknown as Bench],
    // No server: semantic_vad's cues at each sentence end and mid-sentence pause of the recordings.
    ['semantic-cues', async () => (await import('./semantic-cues.js')).benchSemanticCues as unknown as Bench],
    // The pocketsphinx decoders alone (no server): CPU per second of audio and word errors per option set.
    ['decoder', async () => (await import('./decoder.js')).benchDecoder as unknown as Bench],
    ['vad-noise', async () => (await import('./vad-noise.js')).benchVadNoise as Bench],
    ['video', async () => (await import('./video.js')).benchVideo as Bench],
    ['video-stream', async () => (await import('./video.js')).benchVideoStream as Bench],
    ['video-render', async () => (await import('./video-render.js')).benchVideoRender as unknown as Bench],
    // Starts its own server (test-built models in a temporary SVC_MODELS_DIR).
    ['neural', async () => (await import('./neural.js')).benchNeural as unknown as Bench],
    // The espeak-ng phonemizer pool alone (no server needed), at 1, 2 and 4 workers.
    ['phonemizer', async () => (await import('./phonemizer.js')).benchPhonemizer as unknown as Bench],
    ['transcription', async () => (await import('./transcription.js')).benchTranscription as Bench],
    // Chromium with a fake microphone: speech end -> first reply sound, WebRTC vs WebSocket.
    ['webrtc', async () => (await import('./webrtc.js')).benchWebrtc as Bench],
    // Starts its own server with the Wyoming port open (SVC_WYOMING_PORT=0).
    ['wyoming', async () => (await import('./wyoming.js')).benchWyoming as unknown as Bench],
    // Starts its own server with the SIP port open; real phones (baresip) call it.
    ['sip', async () => (await import('./sip.js')).benchSip as unknown as Bench],
    // Component benchmarks: no server (they start what they measure).
    ['language-model', async () => (await import('./language-model.js')).benchLanguageModel as unknown as Bench],
    ['rate-limit', async () => (await import('./rate-limit.js')).benchRateLimit as unknown as Bench],
    ['live-avatar', async () => (await import('./live-avatar.js')).benchLiveAvatar as unknown as Bench],
    // The default voice's language detector on the short-sentence set: before / after, and candidates.
    ['language', async () => (await import('./language.js')).benchLanguage as unknown as Bench],
    ['realtime-factors', async () => (await import('./realtime-factors.js')).benchRealtimeFactors as unknown as Bench],
    // The one resampler alone (no server): aliasing, tone fidelity and CPU per second of audio.
    ['resampler', async () => (await import('./resampler.js')).benchResampler as unknown as Bench],
  ];
  // These start what they measure (their own server or process, test-built models; footprint:
  // npm start's processes), not the shared server. voice-loop starts its own server process.
  const STANDALONE = new Set([
    'language-model',
    'rate-limit',
    'wyoming',
    'sip',
    'footprint',
    'aborted-bursts',
    'voice-loop',
    'turn-latency',
    'turn-model',
    'semantic-cues',
    'decoder',
    'neural',
    'phonemizer',
    'live-avatar',
    'language',
    'realtime-factors',
    'resampler',
  ]);
  const selected = suites.filter(([name]) => wanted.size === 0 || wanted.has(name));
  const bench = selected.some(([name]) => !STANDALONE.has(name))
    ? await startBenchServer({
        SVC_REALTIME_MAX_SESSIONS: '2000',
        SVC_REALTIME_MAX_SESSIONS_PER_KEY: '2000',
        // The realtime bench holds 1,000 idle text sessions: capacity is what voice-loop measures.
        SVC_REALTIME_CAPACITY: 'off',
        // The realtime suite's throughput figure sends 20,000 events in one burst through one session:
        // the engine's rate, not the per-connection inbound budget (which closes such a flood: 1008).
        SVC_REALTIME_INBOUND_EVENTS_PER_SEC: '1000000',
        SVC_REALTIME_INBOUND_BYTES_PER_SEC: String(1024 * 1024 * 1024),
        SVC_VIDEO_MAX_STREAMS: '8',
        // The realtime suites measure warm decoders and a loaded VAD, as before engines loaded on first
        // use; the video suite keeps the default (lazy), so its COLD figure includes loading the detector.
        ...(['realtime', 'voice-wer', 'vad-noise'].some((s) => wanted.size === 0 || wanted.has(s))
          ? { SVC_REALTIME_WARM_UP: 'blocking' }
          : {}),
      })
    : null;
  try {
    for (const [name, load] of selected) {
      let fn: Bench;
      try {
        fn = await load();
      } catch (err) {
        process.stdout.write(`\n## ${name}\n(not available: ${(err as Error).message})\n`);
        continue;
      }
      const started = performance.now();
      const results = await fn(
        (bench ? { baseUrl: bench.baseUrl, wsUrl: bench.wsUrl, apiKey: bench.apiKey, server: bench.server } : {}) as never,
      );
      process.stdout.write(`\n## ${name} (${((performance.now() - started) / 1000).toFixed(1)} s)\n\n| measure | value |\n|---|---|\n`);
      for (const [k, v] of Object.entries(results)) process.stdout.write(`| ${k} | ${v} |\n`);
    }
  } finally {
    await bench?.close();
  }
}

main()
  .then(() => {
    // A client a suite left open (werift's sockets after an avatar call's close) must not keep the
    // run alive once every result is out: exit if the event loop has not emptied 5 s later.
    setTimeout(() => {
      process.stderr.write('bench: handles still open 5 s after the last suite; exiting\n');
      process.exit(0);
    }, 5000).unref();
  })
  .catch((err) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
