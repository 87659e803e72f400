import { expect } from 'chai';
import { itReadsAnyChunking } from './any-chunking.js';
import { readServerSentEvents } from '../src/server-sent-events.js';

/**
 * A chat-completions stream as an OpenAI-compatible server sends it, with what the format allows
 * around it: CRLF and bare-CR line ends, a comment (keep-alive), an `event:` and `id:` field,
 * multi-line data, and multi-byte characters.
 */
const STREAM = [
  ': keep-alive\r\n\r\n',
  'data: {"choices":[{"delta":{"role":"assistant","content":""}}]}\r\n\r\n',
  'data: {"choices":[{"delta":{"content":"Caf\u00e9 "}}]}\r\n\r\n',
  'event: message\rid: 7\rdata: {"choices":[{"delta":{"content":"\u{1F600} ok"}}]}\r\r',
  'data: first line\ndata:second line\n\n',
  'data: {"choices":[{"delta":\r\ndata: {"content":"split"}}]}\r\n\r\n',
  'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\r\n\r\n',
  'data: [DONE]\r\n\r\n',
].join('');

const EXPECTED = [
  '{"choices":[{"delta":{"role":"assistant","content":""}}]}',
  '{"choices":[{"delta":{"content":"Caf\u00e9 "}}]}',
  '{"choices":[{"delta":{"content":"\u{1F600} ok"}}]}',
  'first line\nsecond line',
  '{"choices":[{"delta":\n{"content":"split"}}]}',
  '{"choices":[{"delta":{},"finish_reason":"stop"}]}',
  '[DONE]',
];

async function* chunks(parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield p;
}

async function events(parts: Uint8Array[]): Promise<string[]> {
  const out: string[] = [];
  for await (const data of readServerSentEvents(chunks(parts))) out.push(data);
  return out;
}

describe('readServerSentEvents (eventsource-parser)', () => {
  const bytes = new TextEncoder().encode(STREAM);

  itReadsAnyChunking(bytes, events, EXPECTED);

  it('a CR at the end of one chunk and an LF at the start of the next end ONE line', async () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(await events([enc('data: a\r'), enc('\ndata: b\r\n\r\n')])).to.deep.equal(['a\nb']);
  });

  it('keeps an event cut off by the end of the stream', async () => {
    expect(await events([new TextEncoder().encode('data: x\n\ndata: last')])).to.deep.equal(['x', 'last']);
  });
});
