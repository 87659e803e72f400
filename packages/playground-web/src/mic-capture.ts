/**
 * The microphone as a stream of PCM16 chunks at a chosen rate: getUserMedia -> AudioWorklet
 * (capture-worklet.js resamples and converts on the audio thread) -> `onChunk`.
 */
export interface MicChunk {
  pcm: Int16Array;
  /** RMS level 0..1, for a meter. */
  level: number;
}

/**
 * How the browser treats the microphone before the page sees it. `call`: echo cancellation, noise
 * suppression and gain control on, for a live conversation whose reply plays from the speakers
 * (the agent must not hear itself). `raw`: all three off, for a voice reference: the server measures
 * the voice (pitch, formants) from it, and gain control and noise suppression reshape a quiet
 * room's recording until too little voiced speech is left (audio_too_short).
 */
export type MicProcessing = 'call' | 'raw';

export function micConstraints(processing: MicProcessing): MediaTrackConstraints {
  const on = processing === 'call';
  return { channelCount: 1, echoCancellation: on, noiseSuppression: on, autoGainControl: on };
}

export class MicCapture {
  private constructor(
    private readonly stream: MediaStream,
    private readonly ctx: AudioContext,
    readonly sampleRate: number,
  ) {}

  static async start(sampleRate: number, onChunk: (chunk: MicChunk) => void, processing: MicProcessing, chunkMs = 40): Promise<MicCapture> {
    if (!navigator.mediaDevices?.getUserMedia) {
      throw new Error('This browser gives no microphone access here (it needs https or localhost).');
    }
    const stream = await navigator.mediaDevices.getUserMedia({ audio: micConstraints(processing) });
    const ctx = new AudioContext({ latencyHint: 'interactive' });
    try {
      await ctx.audioWorklet.addModule('/playground/js/capture-worklet.js');
      const source = ctx.createMediaStreamSource(stream);
      const node = new AudioWorkletNode(ctx, 'pcm-capture', { processorOptions: { targetRate: sampleRate, chunkMs }, numberOfOutputs: 1 });
      node.port.onmessage = (e: MessageEvent<{ pcm: ArrayBuffer; level: number }>) =>
        onChunk({ pcm: new Int16Array(e.data.pcm), level: e.data.level });
      // A silent path to the destination keeps the graph (and so the worklet) running.
      const mute = ctx.createGain();
      mute.gain.value = 0;
      source.connect(node).connect(mute).connect(ctx.destination);
      if (ctx.state === 'suspended') await ctx.resume();
    } catch (err) {
      stream.getTracks().forEach((t) => t.stop());
      await ctx.close();
      throw err;
    }
    return new MicCapture(stream, ctx, sampleRate);
  }

  async stop(): Promise<void> {
    this.stream.getTracks().forEach((t) => t.stop());
    await this.ctx.close();
  }
}

/** Records `ms` of microphone audio as it is (no processing: a voice reference) and returns the samples. */
export async function recordMicrophone(ms: number, sampleRate: number, onLevel?: (level: number) => void): Promise<Int16Array> {
  const chunks: Int16Array[] = [];
  const mic = await MicCapture.start(
    sampleRate,
    (c) => {
      chunks.push(c.pcm);
      onLevel?.(c.level);
    },
    'raw',
  );
  await new Promise((r) => setTimeout(r, ms));
  await mic.stop();
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
