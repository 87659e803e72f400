import { createParser, type ParseError } from 'eventsource-parser';

/** A line longer than this from the upstream is an error, not something to buffer without end. */
const MAX_BUFFERED_CHARS = 8 * 1024 * 1024;

/**
 * Reads a `text/event-stream` body and yields the `data` of each event (multi-line data joined
 * with newlines; comments, ids and retries ignored), as chat-completion streams use it. Parsing is
 * `eventsource-parser`'s (the WHATWG rules, including a CR and an LF that arrive in different
 * chunks); bytes are decoded as a stream, so a character split across chunks stays whole. An event
 * cut off by the end of the stream still counts, as chat servers do not always end with a blank line.
 */
export async function* readServerSentEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const ready: string[] = [];
  let failure: ParseError | null = null;
  const parser = createParser({
    maxBufferSize: MAX_BUFFERED_CHARS,
    onEvent: (event) => ready.push(event.data),
    onError: (err) => {
      if (err.type === 'max-buffer-size-exceeded') failure = err;
    },
  });
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (failure) throw failure;
    yield* ready.splice(0);
  }
  // End the last line and dispatch its event (what a closing blank line would have done).
  parser.feed(`${decoder.decode()}\n\n`);
  yield* ready.splice(0);
}
