import { concatPcm } from '@svc/core';
import { OpusscriptOpusCodec } from '@svc/adapters-media';
import { resampleInt16 } from '@svc/adapters-runtime';

const OPUS_RATE = 48000;
const FRAME_MS = 20;
/** libopus's own delay at 48 kHz (its lookahead, OPUS_GET_LOOKAHEAD): a container drops it as pre-skip. */
const LOOKAHEAD_SAMPLES = 312;

/**
 * `samples` as they reach the server from a browser over WebRTC: encoded by libopus in its VOIP
 * mode (what browsers send: it high-passes the voice and codes it with SILK's pitch predictor) in
 * 20 ms frames, then decoded, at `rate` again, aligned with and as long as the input.
 */
export function throughOpus(samples: Int16Array, rate: number): Int16Array {
  const codec = new OpusscriptOpusCodec();
  const encoder = codec.createEncoder(FRAME_MS);
  const decoder = codec.createDecoder(FRAME_MS);
  try {
    const input = resampleInt16(samples, rate, OPUS_RATE);
    const packets = [...encoder.encode(input), ...encoder.encode(new Int16Array(LOOKAHEAD_SAMPLES)), ...encoder.flush()];
    const pcm = concatPcm(packets.map((p) => decoder.decode(p)));
    return resampleInt16(pcm.subarray(LOOKAHEAD_SAMPLES, LOOKAHEAD_SAMPLES + input.length), OPUS_RATE, rate);
  } finally {
    decoder.release();
  }
}
