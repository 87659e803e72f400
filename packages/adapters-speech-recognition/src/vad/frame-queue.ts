/**
 * Samples waiting to be scored, handed out in fixed-size frames. Chunks rarely line up with frames,
 * so the remainder of each chunk waits here for the next one. One growable buffer, compacted in
 * place, so steady streaming allocates nothing.
 */
export class FrameQueue {
  private buffer: Float32Array;
  private start = 0;
  private end = 0;

  constructor(private readonly frameSize: number) {
    this.buffer = new Float32Array(frameSize * 8);
  }

  write(samples: Float32Array): void {
    if (this.end + samples.length > this.buffer.length) this.makeRoom(samples.length);
    this.buffer.set(samples, this.end);
    this.end += samples.length;
  }

  /** A whole frame is waiting. */
  get hasFrame(): boolean {
    return this.end - this.start >= this.frameSize;
  }

  /** Copies the next whole frame into `target` and consumes it; false when less than a frame waits. */
  readFrame(target: Float32Array): boolean {
    if (this.end - this.start < this.frameSize) return false;
    target.set(this.buffer.subarray(this.start, this.start + this.frameSize));
    this.start += this.frameSize;
    return true;
  }

  private makeRoom(incoming: number): void {
    const held = this.end - this.start;
    if (held + incoming > this.buffer.length) {
      const grown = new Float32Array(Math.max(held + incoming, this.buffer.length * 2));
      grown.set(this.buffer.subarray(this.start, this.end));
      this.buffer = grown;
    } else {
      this.buffer.copyWithin(0, this.start, this.end);
    }
    this.start = 0;
    this.end = held;
  }
}
