import { expect } from 'chai';
import {
  EngineError,
  InsufficientQuotaError,
  LanguageModelSummarizer,
  type LanguageModelEvent,
  type LanguageModelRequest,
} from '@svc/core';
import { OpenAiCompatibleLanguageModel } from '../src/index.js';
import { chunk, sleep, sseHeaders, startSseServer } from './sse-test-server.js';

function request(overrides: Partial<LanguageModelRequest> = {}): LanguageModelRequest {
  return {
    messages: [
      { role: 'system', content: 'Be nice.' },
      { role: 'user', content: 'Weather in Paris?' },
    ],
    tools: [],
    toolChoice: 'auto',
    temperature: 0.7,
    maxOutputTokens: null,
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function collect(stream: AsyncIterable<LanguageModelEvent>): Promise<LanguageModelEvent[]> {
  const out: LanguageModelEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe('OpenAiCompatibleLanguageModel (against a local SSE server)', () => {
  let server: Awaited<ReturnType<typeof startSseServer>> | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('streams text deltas and sends a chat-completions request with model, messages, tools, temperature and max_tokens', async () => {
    server = await startSseServer((_req, res) => {
      sseHeaders(res);
      res.write(': keep-alive comment\n\n');
      res.write(chunk({ role: 'assistant', content: '' }));
      res.write(chunk({ content: 'Hel' }));
      res.write(chunk({ content: 'lo!' }));
      res.write(chunk({}, 'stop'));
      res.end('data: [DONE]\n\n');
    });
    const model = new OpenAiCompatibleLanguageModel({
      baseUrl: `${server.baseUrl}/`,
      model: 'llama3',
      apiKey: 'sk-test',
      contextWindowTokens: 16000,
    });
    expect(model.id).to.equal('openai-compatible:llama3');
    expect(model.contextWindowTokens).to.equal(16000);
    const events = await collect(
      model.stream(
        request({
          messages: [
            { role: 'system', content: 'Be nice.' },
            { role: 'user', content: 'Weather?' },
            { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
            { role: 'tool', toolCallId: 'call_1', content: '21C' },
          ],
          tools: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object' } }],
          toolChoice: { type: 'function', name: 'get_weather' },
          temperature: 0.2,
          maxOutputTokens: 50,
        }),
      ),
    );
    expect(events).to.deep.equal([
      { type: 'text', delta: 'Hel' },
      { type: 'text', delta: 'lo!' },
    ]);
    const [req] = server.requests;
    expect(req!.url).to.equal('/v1/chat/completions');
    expect(req!.headers.authorization).to.equal('Bearer sk-test');
    expect(req!.body).to.deep.equal({
      model: 'llama3',
      messages: [
        { role: 'system', content: 'Be nice.' },
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '21C' },
      ],
      stream: true,
      temperature: 0.2,
      max_tokens: 50,
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
  });

  it('assembles tool-call deltas split across chunks (split name, split arguments, two calls) and parses SSE cut mid-line', async () => {
    const body = [
      chunk({
        role: 'assistant',
        content: null,
        tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_', arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'weather' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Paris"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
      'data: [DONE]\n\n',
    ].join('');
    server = await startSseServer(async (_req, res) => {
      sseHeaders(res);
      // Deliver the stream in odd-sized pieces so events and lines are cut anywhere.
      for (let i = 0; i < body.length; i += 7) {
        res.write(body.slice(i, i + 7));
        if (i % 70 === 0) await sleep(1);
      }
      res.end();
    });
    const model = new OpenAiCompatibleLanguageModel({ baseUrl: server.baseUrl, model: 'm' });
    const events = await collect(model.stream(request({ tools: [{ name: 'get_weather', description: '', parameters: {} }] })));
    expect(events).to.deep.equal([
      { type: 'tool_call', index: 0, callId: 'call_a', name: 'get_weather' },
      { type: 'tool_call_arguments', index: 0, delta: '{"ci' },
      { type: 'tool_call_arguments', index: 0, delta: 'ty":"Paris"}' },
      { type: 'tool_call', index: 1, callId: 'call_b', name: 'get_time' },
      { type: 'tool_call_arguments', index: 1, delta: '{}' },
    ]);
  });

  it('fails with EngineError when the upstream connection drops mid-stream', async () => {
    server = await startSseServer(async (_req, res) => {
      sseHeaders(res);
      res.write(chunk({ content: 'partial ' }));
      await sleep(20);
      res.socket?.destroy();
    });
    const model = new OpenAiCompatibleLanguageModel({ baseUrl: server.baseUrl, model: 'm' });
    const seen: LanguageModelEvent[] = [];
    const err = await (async () => {
      for await (const e of model.stream(request())) seen.push(e);
    })().catch((e: unknown) => e);
    expect(seen).to.deep.equal([{ type: 'text', delta: 'partial ' }]);
    expect(err).to.be.instanceOf(EngineError);
  });

  it('fails with EngineError on an error object inside the stream, and when the stream ends without finishing', async () => {
    server = await startSseServer((req, res) => {
      sseHeaders(res);
      res.write(chunk({ content: 'x' }));
      if ((req.body.messages as unknown[]).length === 2)
        res.end(`data: ${JSON.stringify({ error: { message: 'model overloaded', type: 'server_error' } })}\n\n`);
      else res.end();
    });
    const model = new OpenAiCompatibleLanguageModel({ baseUrl: server.baseUrl, model: 'm' });
    const overloaded = await collect(model.stream(request())).catch((e: unknown) => e);
    expect(overloaded).to.be.instanceOf(EngineError);
    expect((overloaded as Error).message).to.contain('model overloaded');
    const truncated = await collect(model.stream(request({ messages: [{ role: 'user', content: 'x' }] }))).catch((e: unknown) => e);
    expect(truncated).to.be.instanceOf(EngineError);
    expect((truncated as Error).message).to.contain('ended before the reply was complete');
  });

  it('maps HTTP errors: insufficient_quota to InsufficientQuotaError, others to EngineError with the upstream message', async () => {
    server = await startSseServer((req, res) => {
      const quota = (req.body.model as string) === 'broke';
      res.writeHead(quota ? 429 : 500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: quota
            ? { message: 'You exceeded your current quota.', type: 'insufficient_quota', code: 'insufficient_quota' }
            : { message: 'boom' },
        }),
      );
    });
    const broke = await collect(new OpenAiCompatibleLanguageModel({ baseUrl: server.baseUrl, model: 'broke' }).stream(request())).catch(
      (e: unknown) => e,
    );
    expect(broke).to.be.instanceOf(InsufficientQuotaError);
    expect((broke as Error).message).to.equal('You exceeded your current quota.');
    const boom = await collect(new OpenAiCompatibleLanguageModel({ baseUrl: server.baseUrl, model: 'm' }).stream(request())).catch(
      (e: unknown) => e,
    );
    expect(boom).to.be.instanceOf(EngineError);
    expect((boom as Error).message).to.equal('The language model answered 500: boom');
  });

  it('stops promptly and closes the upstream connection when the request is aborted', async () => {
    let upstreamFinished = false;
    server = await startSseServer(async (_req, res) => {
      sseHeaders(res);
      res.write(chunk({ content: 'first ' }));
      await sleep(5000);
      upstreamFinished = true;
      res.end();
    });
    const controller = new AbortController();
    const model = new OpenAiCompatibleLanguageModel({ baseUrl: server.baseUrl, model: 'm' });
    const seen: LanguageModelEvent[] = [];
    const result = (async () => {
      for await (const e of model.stream(request({ signal: controller.signal }))) {
        seen.push(e);
        controller.abort();
      }
    })().catch((e: unknown) => e);
    await result;
    expect(upstreamFinished, 'stopped while the upstream was still streaming').to.equal(false);
    expect(seen).to.deep.equal([{ type: 'text', delta: 'first ' }]);
    await sleep(50);
    expect(server.closedConnections()).to.equal(1);
  });

  it('gives up with EngineError when no response headers arrive within the connect timeout (a hung upstream)', async () => {
    server = await startSseServer(() => undefined); // reads the request, never answers
    const model = new OpenAiCompatibleLanguageModel({ baseUrl: server.baseUrl, model: 'm', connectTimeoutMs: 300 });
    const started = Date.now();
    const err = await collect(model.stream(request())).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(EngineError);
    expect((err as Error).message).to.equal(`The language model at ${server.baseUrl} is unreachable: no answer in time`);
    expect(Date.now() - started).to.be.below(3000);
    expect(server.requests, 'one attempt: no retry').to.have.length(1);
  });

  it('makes one attempt only: an upstream 500 is not retried (a retry would repeat a reply already heard)', async () => {
    server = await startSseServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('upstream busy');
    });
    const err = await collect(new OpenAiCompatibleLanguageModel({ baseUrl: server.baseUrl, model: 'm' }).stream(request())).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).to.equal('The language model answered 503: upstream busy');
    expect(server.requests).to.have.length(1);
  });

  it('without a configured key sends no Authorization header, and never the OPENAI_* variables of the environment', async () => {
    server = await startSseServer((_req, res) => {
      sseHeaders(res);
      res.end(chunk({ content: 'ok' }, 'stop'));
    });
    const saved = { key: process.env.OPENAI_API_KEY, org: process.env.OPENAI_ORG_ID, base: process.env.OPENAI_BASE_URL };
    process.env.OPENAI_API_KEY = 'sk-from-the-environment';
    process.env.OPENAI_ORG_ID = 'org-from-the-environment';
    process.env.OPENAI_BASE_URL = 'http://127.0.0.1:1/v1';
    try {
      const events = await collect(new OpenAiCompatibleLanguageModel({ baseUrl: server.baseUrl, model: 'm' }).stream(request()));
      expect(events).to.deep.equal([{ type: 'text', delta: 'ok' }]);
    } finally {
      for (const [name, value] of [
        ['OPENAI_API_KEY', saved.key],
        ['OPENAI_ORG_ID', saved.org],
        ['OPENAI_BASE_URL', saved.base],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    const [req] = server.requests;
    expect(req!.headers).not.to.have.property('authorization');
    expect(req!.headers).not.to.have.property('openai-organization');
  });

  it('summarizes a conversation through the upstream (the realtime summarizer on this client)', async () => {
    server = await startSseServer((req, res) => {
      sseHeaders(res);
      const transcript = String((req.body.messages as { content: string }[])[1]!.content);
      res.write(chunk({ content: 'The user ' }));
      res.end(chunk({ content: transcript.includes('Paris') ? 'asked about Paris.' : 'said nothing.' }, 'stop') + 'data: [DONE]\n\n');
    });
    const summarizer = new LanguageModelSummarizer(new OpenAiCompatibleLanguageModel({ baseUrl: server.baseUrl, model: 'm' }));
    const summary = await summarizer.summarize(
      [
        { id: 'item_1', type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
      ] as never,
      new AbortController().signal,
    );
    expect(summary).to.equal('Summary of the earlier conversation: The user asked about Paris.');
    expect(server.requests[0]!.body).to.include({ temperature: 0.2, max_tokens: 300 });
  });

  it('reports an unreachable server as EngineError', async () => {
    const model = new OpenAiCompatibleLanguageModel({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm' });
    const err = await collect(model.stream(request())).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(EngineError);
    expect((err as Error).message).to.contain('unreachable');
  });
});
