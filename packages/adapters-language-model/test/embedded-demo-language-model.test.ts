import { expect } from 'chai';
import type { ChatMessage, LanguageModelEvent, LanguageModelRequest } from '@svc/core';
import { demoToolArguments, EmbeddedDemoLanguageModel } from '../src/index.js';

const NOW = new Date(Date.UTC(2025, 10, 22, 14, 5, 0));

function req(messages: ChatMessage[], overrides: Partial<LanguageModelRequest> = {}): LanguageModelRequest {
  return {
    messages,
    tools: [],
    toolChoice: 'auto',
    temperature: 0.7,
    maxOutputTokens: null,
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function run(model: EmbeddedDemoLanguageModel, request: LanguageModelRequest) {
  const events: LanguageModelEvent[] = [];
  for await (const e of model.stream(request)) events.push(e);
  const text = events
    .filter((e) => e.type === 'text')
    .map((e) => (e as { delta: string }).delta)
    .join('');
  return { events, text };
}

const user = (content: string): ChatMessage => ({ role: 'user', content });
const weatherTool = {
  name: 'get_weather',
  description: 'Current weather',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer' } },
    required: ['city', 'days'],
  },
};

describe('EmbeddedDemoLanguageModel', () => {
  const model = new EmbeddedDemoLanguageModel({ now: () => NOW });

  it('restates what the user said, streamed word by word', async () => {
    const { events, text } = await run(model, req([user('The cat sat on the mat')]));
    expect(text).to.equal('You said: "The cat sat on the mat".');
    expect(events.map((e) => (e as { delta: string }).delta)).to.deep.equal([
      'You ',
      'said: ',
      '"The ',
      'cat ',
      'sat ',
      'on ',
      'the ',
      'mat".',
    ]);
  });

  it('answers the time, the date, greetings and help, and is honest about being a demo', async () => {
    expect((await run(model, req([user('What time is it?')]))).text).to.equal('It is 14:05 UTC.');
    expect((await run(model, req([user("What's the date today?")]))).text).to.equal('Today is Saturday, 22 November 2025 (UTC).');
    expect((await run(model, req([user('Hello there')]))).text).to.match(/^Hello! How can I help you\?/);
    const help = (await run(model, req([user('what can you do?')]))).text;
    expect(help).to.contain('embedded demo model');
    expect(help).to.contain('not a real language model');
    expect((await run(model, req([{ role: 'system', content: 'x' }]))).text).to.match(/^Hello! I am the embedded demo model/);
  });

  it('follows "Say exactly" instructions', async () => {
    const { text } = await run(model, req([{ role: 'system', content: 'Greet. Say exactly: "Welcome to the demo!"' }, user('hi')]));
    expect(text).to.equal('Welcome to the demo!');
  });

  it('calls a tool the user names, with arguments built from its schema, streamed in pieces', async () => {
    const { events } = await run(model, req([user('Use get weather in New York for 3 days, in celsius')], { tools: [weatherTool] }));
    expect(events[0]).to.deep.include({ type: 'tool_call', index: 0, name: 'get_weather' });
    const args = events.slice(1).map((e) => (e as { delta: string }).delta);
    expect(args.length).to.be.greaterThan(1);
    expect(JSON.parse(args.join(''))).to.deep.equal({ city: 'New York', unit: 'celsius', days: 3 });
  });

  it('does not call tools when tool_choice is none or nothing is named; required picks one', async () => {
    expect((await run(model, req([user('get_weather please')], { tools: [weatherTool], toolChoice: 'none' }))).events[0]!.type).to.equal(
      'text',
    );
    expect((await run(model, req([user('nice day')], { tools: [weatherTool] }))).events[0]!.type).to.equal('text');
    expect((await run(model, req([user('nice day')], { tools: [weatherTool], toolChoice: 'required' }))).events[0]!.type).to.equal(
      'tool_call',
    );
  });

  it('describes a tool result instead of calling the tool again', async () => {
    const { text } = await run(
      model,
      req(
        [
          user('get_weather in Paris'),
          { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{}' }] },
          { role: 'tool', toolCallId: 'c1', content: '{"temp":21}' },
        ],
        { tools: [weatherTool] },
      ),
    );
    expect(text).to.equal('I called the get_weather tool. It returned: {"temp":21}');
  });

  it('honours max_output_tokens and stops when aborted', async () => {
    expect((await run(model, req([user('one two three four five six')], { maxOutputTokens: 3 }))).text).to.equal('You said: "one ');
    const controller = new AbortController();
    const slow = new EmbeddedDemoLanguageModel({ tokenDelayMs: 20 });
    const seen: LanguageModelEvent[] = [];
    for await (const e of slow.stream(req([user('a b c d e f g h')], { signal: controller.signal }))) {
      seen.push(e);
      if (seen.length === 2) controller.abort();
    }
    expect(seen).to.have.length(2);
  });

  it('builds arguments for required fields nobody mentioned with empty values', () => {
    expect(
      demoToolArguments(
        {
          properties: { flag: { type: 'boolean' }, n: { type: 'number' }, s: { type: 'string' }, list: { type: 'array' } },
          required: ['flag', 'n', 's', 'list'],
        },
        'nothing here',
      ),
    ).to.deep.equal({
      flag: false,
      n: 0,
      s: '',
      list: [],
    });
    expect(demoToolArguments({ properties: { query: { type: 'string' } } }, 'search for "blue whales"')).to.deep.equal({
      query: 'blue whales',
    });
  });
});
