/**
 * Follows the top-level boxes of an MP4 byte stream arriving in arbitrary chunks (ffmpeg's stdout
 * does not cut at box boundaries) and says when a box of a given type has begun: how the stream
 * knows its first fragment (`moof`) has left. Reads only the 8-byte box headers it crosses.
 */
export class TopLevelBoxWatcher {
  /** Offset of the next top-level box header in the whole stream. */
  private nextBox = 0;
  private seen = 0;
  private header = new Uint8Array(8);
  private headerBytes = 0;
  private done = false;

  constructor(private readonly type: string) {}

  /** Feeds the next chunk; true once (for the chunk in which the first box of `type` begins). */
  push(chunk: Uint8Array): boolean {
    if (this.done) return false;
    let i = 0;
    while (i < chunk.length) {
      const chunkStart = this.seen;
      if (chunkStart + i < this.nextBox) {
        i = Math.min(chunk.length, this.nextBox - chunkStart);
        continue;
      }
      this.header[this.headerBytes++] = chunk[i++]!;
      if (this.headerBytes < 8) continue;
      this.headerBytes = 0;
      const size = ((this.header[0]! << 24) >>> 0) + (this.header[1]! << 16) + (this.header[2]! << 8) + this.header[3]!;
      const type = String.fromCharCode(...this.header.subarray(4, 8));
      if (type === this.type) {
        this.done = true;
        this.seen += chunk.length;
        return true;
      }
      // size 0 (to the end) or 1 (64-bit size): not used by ffmpeg's fragmented output; stop watching.
      if (size < 8) {
        this.done = true;
        break;
      }
      this.nextBox += size;
    }
    this.seen += chunk.length;
    return false;
  }
}
