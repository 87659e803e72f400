import { InvalidRequestError, type OpusCodec, type OpusPacketDecoder, type PcmAudio } from '@svc/core';
import { OpusFrameEncoder } from './opus-frame-encoder.js';
import { MAX_DECODE_PACKET_BYTES, OPUS_SAMPLE_RATE, OpusNativeState, opusErrorText } from './opusscript-native.js';

/** The realtime spec's `frame_size_ms` values. */
export const OPUS_FRAME_SIZES_MS = [2.5, 5, 10, 20, 40, 60] as const;

/** Packets decoded between two yields to the event loop (about 1 s of 20 ms packets). */
const PACKETS_PER_SLICE = 50;

function frameSamples(frameSizeMs: number): number {
  if (!(OPUS_FRAME_SIZES_MS as readonly number[]).includes(frameSizeMs)) {
    throw new RangeError(`opus frame size must be one of ${OPUS_FRAME_SIZES_MS.join(', ')} ms, got ${frameSizeMs}.`);
  }
  return (OPUS_SAMPLE_RATE / 1000) * frameSizeMs;
}

/**
 * `OpusCodec` on libopus 1.4 in WASM (the `opusscript` package; no native build): mono, 48 kHz,
 * application VOIP (both directions carry conversational speech: libopus tunes VOIP for speech
 * intelligibility), libopus's automatic bitrate (about 51 kb/s at 20 ms frames).
 *
 * - `createEncoder(ms)`: one `OpusFrameEncoder` per reply, one packet per `48 * ms` samples; its
 *   native state is freed by `flush()` (the core calls it when a reply ends) and, for replies that
 *   are cancelled before, by a FinalizationRegistry when the encoder is garbage-collected.
 * - `decode(packets, ms)`: one decoder state per call, packets decoded one by one in order (opus
 *   decoding is stateful across packets); every packet is self-describing, so packets whose duration
 *   differs from `ms` still decode. An empty, oversized or corrupt packet is refused with an
 *   `invalid_request_error` naming its position. Both run far faster than real time, on the calling
 *   thread (docs/realtime.md, `opusCodec`).
 */
export class OpusscriptOpusCodec implements OpusCodec {
  createEncoder(frameSizeMs: number): OpusFrameEncoder {
    return new OpusFrameEncoder(frameSamples(frameSizeMs));
  }

  createDecoder(frameSizeMs: number): OpusPacketDecoder {
    frameSamples(frameSizeMs);
    let state: OpusNativeState | null = null;
    let index = 0;
    return {
      decode: (packet) => {
        // Created on the first packet: a session that never sends opus holds no WASM state.
        state ??= new OpusNativeState();
        const result = state.decodePacket(packet);
        index++;
        if (typeof result === 'number') throw corruptPacket(index - 1, null, packet, result);
        return result;
      },
      release: () => {
        state?.release();
        state = null;
      },
    };
  }

  async decode(packets: Uint8Array[], frameSizeMs: number): Promise<PcmAudio> {
    frameSamples(frameSizeMs);
    const parts: Int16Array[] = [];
    let total = 0;
    const state = new OpusNativeState();
    try {
      for (let i = 0; i < packets.length; i++) {
        // Long buffers decode in slices so that other sessions are not stalled.
        if (i > 0 && i % PACKETS_PER_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
        const packet = packets[i]!;
        const result = state.decodePacket(packet);
        if (typeof result === 'number') throw corruptPacket(i, packets.length, packet, result);
        parts.push(result);
        total += result.length;
      }
    } finally {
      state.release();
    }
    const samples = new Int16Array(total);
    let offset = 0;
    for (const part of parts) {
      samples.set(part, offset);
      offset += part.length;
    }
    return { samples, sampleRate: OPUS_SAMPLE_RATE };
  }
}

function corruptPacket(index: number, count: number | null, packet: Uint8Array, code: number): InvalidRequestError {
  const why =
    packet.length === 0
      ? 'it is empty'
      : packet.length > MAX_DECODE_PACKET_BYTES
        ? `it is ${packet.length} bytes, more than any opus packet`
        : `libopus: ${opusErrorText(code)}`;
  return new InvalidRequestError(
    `Opus packet ${index + 1}${count === null ? '' : ` of ${count}`} (${packet.length} bytes) could not be decoded (${why}); each input_audio_buffer.append must carry exactly one opus packet.`,
  );
}
