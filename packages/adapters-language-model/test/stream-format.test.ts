import { expect } from 'chai';
import { itReadsAnyChunking } from './any-chunking.js';
import { EngineError, type LanguageModelEvent, type LanguageModelRequest } from '@svc/core';
import { OpenAiCompatibleLanguageModel } from '../src/index.js';

/**
 * A chat-completions stream as an OpenAI-compatible server sends it, with what the SSE format allows
 * around it: CRLF and bare-CR line ends, a comment (keep-alive), `event:` and `id:` fields, data split
 * over several `data:` lines, multi-byte characters, and no blank line after the last event.
 */
const STREAM = [
  ': keep-alive\r\n\r\n',
  'data: {"choices":[{"delta":{"role":"assistant","content":""}}]}\r\n\r\n',
  'data: {"choices":[{"delta":{"content":"Caf\u00e9 "}}]}\r\n\r\n',
  'event: message\rid: 7\rdata: {"choices":[{"delta":{"content":"\u{1F600} ok"}}]}\r\r',
  'data: {"choices":[{"delta":\r\ndata: {"content":" split"}}]}\r\n\r\n',
  'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"get_","arguments":""}}]}}]}\n\n',
  'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"time","arguments":"{\\"tz\\":\\"\u00e9\\"}"}}]}}]}\n\n',
  'data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}',
].join('');

const EXPECTED: LanguageModelEvent[] = [
  { type: 'text', delta: 'Caf\u00e9 ' },
  { type: 'text', delta: '\u{1F600} ok' },
  { type: 'text', delta: ' split' },
  { type: 'tool_call', index: 0, callId: 'call_1', name: 'get_time' },
  { type: 'tool_call_arguments', index: 0, delta: '{"tz":"\u00e9"}' },
];

function request(): LanguageModelRequest {
  return {
    messages: [{ role: 'user', content: 'x' }],
    tools: [],
    toolChoice: 'auto',
    temperature: 1,
    maxOutputTokens: null,
    signal: new AbortController().signal,
  };
}

/** A model whose upstream answers with `parts`, byte chunk by byte chunk as given. */
function modelAnswering(parts: Uint8Array[]): OpenAiCompatibleLanguageModel {
  const fetchParts: typeof fetch = async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const p of parts) controller.enqueue(p);
          controller.close();
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );
  return new OpenAiCompatibleLanguageModel({ baseUrl: 'http://upstream.invalid/v1', model: 'm', fetch: fetchParts });
}

async function events(parts: Uint8Array[]): Promise<LanguageModelEvent[]> {
  const out: LanguageModelEvent[] = [];
  for await (const e of modelAnswering(parts).stream(request())) out.push(e);
  return out;
}

/** The SSE reading of the client (the openai SDK's, plus the closing blank line it needs). */
describe('OpenAiCompatibleLanguageModel: the stream format, however it is cut', () => {
  const bytes = new TextEncoder().encode(STREAM);

  itReadsAnyChunking(bytes, events, EXPECTED);

  it('keeps the last event when no blank line closes it (it carries finish_reason)', async () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(
      await events([
        enc('data: {"choices":[{"delta":{"content":"x"}}]}\n\ndata: {"choices":[{"delta":{"content":"y"},"finish_reason":"stop"}]}'),
      ]),
    ).to.deep.equal([
      { type: 'text', delta: 'x' },
      { type: 'text', delta: 'y' },
    ]);
  });

  it('a chunk that is not JSON is EngineError, and nothing is printed', async () => {
    const printed: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void printed.push(args);
    try {
      const err = await events([new TextEncoder().encode('data: {"choices":[{"delta":{"content":"x"}}]}\n\ndata: not json\n\n')]).catch(
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(EngineError);
      expect((err as Error).message).to.equal('The language model sent a malformed stream chunk.');
    } finally {
      console.error = original;
    }
    expect(printed).to.deep.equal([]);
  });
});
