import InitSpeexResampler, { type SpeexResamplerModule } from '@echogarden/speex-resampler-wasm';

/** The WASM SIMD build (several times faster), or the plain build where SIMD is unavailable. */
async function loadSpeex(): Promise<SpeexResamplerModule> {
  try {
    const simd = await import('@echogarden/speex-resampler-wasm/simd');
    return await simd.default();
  } catch {
    return InitSpeexResampler();
  }
}

/**
 * The Speex resampler (BSD, WASM), loaded once per thread when the runtime is first imported, so that
 * a resampler can then be created synchronously (inside a constructor, in the middle of a stream).
 * JavaScript is single-threaded, so calls into it never interleave.
 */
export const speex: SpeexResamplerModule = await loadSpeex();
