/**
 * Items produced by callbacks (a render's fragments, a recognizer's text) read as an async
 * iterable by one reader. The producer never waits for the reader: what the reader has not taken
 * yet is buffered. `end` finishes after the buffered items, `fail` after them with an error. When
 * the reader leaves early, buffering stops (later pushes are dropped) but the producer goes on.
 */
export class AsyncChannel<T> implements AsyncIterable<T> {
  private readonly buffered: T[] = [];
  private finished = false;
  private failure: { error: unknown } | null = null;
  private wake: (() => void) | null = null;
  private abandoned = false;

  push(item: T): void {
    if (this.abandoned || this.finished) return;
    this.buffered.push(item);
    this.notify();
  }

  end(): void {
    this.finished = true;
    this.notify();
  }

  fail(error: unknown): void {
    if (this.finished) return;
    this.failure = { error };
    this.end();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    try {
      for (;;) {
        if (this.buffered.length > 0) {
          yield this.buffered.shift()!;
          continue;
        }
        if (this.finished) {
          if (this.failure) throw this.failure.error;
          return;
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.abandoned = true;
      this.buffered.length = 0;
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
