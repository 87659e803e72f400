/**
 * Starts reading `source` now and keeps what arrives until it is consumed, so a step that streams
 * (an upstream server's response) keeps downloading while the step before it is still being sent.
 * A failure of the source is thrown to the consumer when it reaches that point; `onEnd` gets the
 * total sample count once the source has ended.
 */
export function prefetch(source: AsyncIterable<Int16Array>, onEnd: (samples: number) => void): AsyncIterable<Int16Array> {
  const items: Int16Array[] = [];
  let ended = false;
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  void (async () => {
    let samples = 0;
    try {
      for await (const chunk of source) {
        samples += chunk.length;
        items.push(chunk);
        notify();
      }
      onEnd(samples);
    } catch (error) {
      failure = { error };
    } finally {
      ended = true;
      notify();
    }
  })();
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (items.length > 0) {
          yield items.shift()!;
          continue;
        }
        if (failure) throw failure.error;
        if (ended) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}
