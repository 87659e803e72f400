import { OpusNativeState } from './opusscript-native.js';

/**
 * Backstop for encoders that are dropped without `flush()`: the core only flushes a reply that ends
 * normally, so a cancelled or failed reply leaves its encoder behind. When the garbage collector
 * reclaims such an encoder, its native state is freed here.
 */
const abandoned = new FinalizationRegistry<OpusNativeState>((state) => state.release());

/**
 * A stateful opus encoder for one audio stream (one reply): buffers 48 kHz mono PCM of any chunk
 * size and emits one packet per complete frame of `frameSamples`. `flush()` pads the last partial
 * frame with silence, emits it, and frees the native state; an `encode()` after that starts a new
 * stream with a fresh state. The native state is allocated on the first `encode()`, so a reply
 * that never speaks allocates nothing.
 */
export class OpusFrameEncoder {
  private state: OpusNativeState | null = null;
  private readonly frame: Int16Array;
  private filled = 0;

  constructor(readonly frameSamples: number) {
    this.frame = new Int16Array(frameSamples);
  }

  encode(pcm48k: Int16Array): Uint8Array[] {
    const packets: Uint8Array[] = [];
    let offset = 0;
    while (offset < pcm48k.length) {
      const take = Math.min(this.frameSamples - this.filled, pcm48k.length - offset);
      this.frame.set(pcm48k.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === this.frameSamples) packets.push(this.encodeBufferedFrame());
    }
    return packets;
  }

  flush(): Uint8Array[] {
    const packets: Uint8Array[] = [];
    try {
      if (this.filled > 0) {
        this.frame.fill(0, this.filled);
        packets.push(this.encodeBufferedFrame());
      }
    } finally {
      this.filled = 0;
      this.release();
    }
    return packets;
  }

  /** Frees the native state without emitting the buffered samples (idempotent). */
  release(): void {
    if (!this.state) return;
    abandoned.unregister(this.state);
    this.state.release();
    this.state = null;
  }

  private encodeBufferedFrame(): Uint8Array {
    if (!this.state) {
      this.state = new OpusNativeState();
      abandoned.register(this, this.state, this.state);
    }
    this.filled = 0;
    return this.state.encodeFrame(this.frame);
  }
}
