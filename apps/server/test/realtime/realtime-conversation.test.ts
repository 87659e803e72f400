import { expect } from 'chai';
import { openSession, userText, takeViolations, type RealtimeClient } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';

const strip = ({ event_id: _e, ...rest }: Record<string, any>) => rest;

describe('realtime e2e: conversation items', function () {
  this.timeout(30_000);
  let s: RealtimeTestServer;
  let client: RealtimeClient;
  before(async () => {
    s = await startRealtimeServer();
  });
  after(async () => s?.close());
  beforeEach(async () => ({ client } = await openSession(s.wsUrl, s.apiKey)));
  afterEach(async () => {
    await client.close();
    expect(takeViolations()).to.deep.equal([]);
  });

  it('conversation.item.create adds a user message (client id kept) and never triggers a response', async () => {
    client.send({ type: 'conversation.item.create', item: userText('Hello', 'msg_001') });
    expect(strip(await client.next())).to.deep.equal({
      type: 'conversation.item.added',
      previous_item_id: null,
      item: {
        id: 'msg_001',
        object: 'realtime.item',
        type: 'message',
        status: 'completed',
        role: 'user',
        content: [{ type: 'input_text', text: 'Hello' }],
      },
    });
    await client.expectQuiet(200);
  });

  it('appends at the end without previous_item_id, inserts after a given one, and generates ids', async () => {
    client.send({ type: 'conversation.item.create', item: userText('one', 'a') });
    client.send({ type: 'conversation.item.create', previous_item_id: null, item: userText('three', 'c') });
    client.send({ type: 'conversation.item.create', previous_item_id: 'a', item: userText('two') });
    const [a, c, b] = await client.take(3);
    expect(a!.previous_item_id).to.equal(null);
    expect(c!.previous_item_id).to.equal('a');
    expect(b!.previous_item_id).to.equal('a');
    expect(b!.item.id).to.be.a('string').and.not.be.oneOf(['a', 'c']);
  });

  it('assistant text, function_call and function_call_output items', async () => {
    client.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Sure.' }] },
    });
    client.send({
      type: 'conversation.item.create',
      item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    });
    client.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'call_1', output: '{"temp":3}' } });
    const [assistant, call, output] = await client.take(3);
    expect(assistant!.item).to.deep.include({ role: 'assistant', content: [{ type: 'output_text', text: 'Sure.' }] });
    expect(call!.item).to.deep.equal({
      id: 'fc_1',
      object: 'realtime.item',
      type: 'function_call',
      status: 'completed',
      call_id: 'call_1',
      name: 'get_weather',
      arguments: '{"city":"Oslo"}',
    });
    expect(output!.item).to.deep.include({ type: 'function_call_output', call_id: 'call_1', output: '{"temp":3}' });
  });

  it('errors: invalid_previous_item_id, conversation_item_duplicate_id; non-text items skipped', async () => {
    client.send({ type: 'conversation.item.create', event_id: 'e1', previous_item_id: 'nope', item: userText('x') });
    const unknownPrevious = await client.next();
    expect(unknownPrevious.type).to.equal('error');
    expect(unknownPrevious.error).to.deep.include({ type: 'invalid_previous_item_id', event_id: 'e1' });

    client.send({ type: 'conversation.item.create', item: userText('x', 'dup') });
    await client.next();
    client.send({ type: 'conversation.item.create', item: userText('y', 'dup') });
    expect((await client.next()).error.type).to.equal('conversation_item_duplicate_id');

    client.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', id: 'audio_item', content: [{ type: 'input_audio', audio: 'AAAA' }] },
    });
    await client.expectQuiet(200);
    client.send({ type: 'conversation.item.retrieve', item_id: 'audio_item' });
    expect((await client.next()).error.type).to.equal('conversation_item_not_found');
    expect(client.closeInfo).to.equal(null);
  });

  it('a system message is rejected with an error, then the session closes (1000)', async () => {
    client.send({
      type: 'conversation.item.create',
      event_id: 'sys',
      item: { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'obey' }] },
    });
    const system = await client.next();
    expect(system.type).to.equal('error');
    expect(system.error).to.deep.include({ code: 'system_role_unsupported', param: 'item.role', event_id: 'sys' });
    expect((await client.closed).code).to.equal(1000);
  });

  it('retrieve answers the full server copy; truncate in a text-only session answers audio_end_ms 0; delete answers deleted', async () => {
    client.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'assistant', id: 'asst', content: [{ type: 'output_text', text: 'A long answer.' }] },
    });
    await client.next();
    client.send({ type: 'conversation.item.retrieve', item_id: 'asst' });
    expect(strip(await client.next())).to.deep.equal({
      type: 'conversation.item.retrieved',
      item: {
        id: 'asst',
        object: 'realtime.item',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'A long answer.' }],
      },
    });
    client.send({ type: 'conversation.item.truncate', item_id: 'asst', content_index: 0, audio_end_ms: 1200 });
    expect(strip(await client.next())).to.deep.equal({
      type: 'conversation.item.truncated',
      item_id: 'asst',
      content_index: 0,
      audio_end_ms: 0,
    });
    client.send({ type: 'conversation.item.delete', item_id: 'asst' });
    expect(strip(await client.next())).to.deep.equal({ type: 'conversation.item.deleted', item_id: 'asst' });
    for (const type of ['conversation.item.retrieve', 'conversation.item.delete']) {
      client.send({ type, item_id: 'asst' });
      expect((await client.next()).error.type, type).to.equal('conversation_item_not_found');
    }
    client.send({ type: 'conversation.item.truncate', item_id: 'asst', content_index: 0, audio_end_ms: 0 });
    expect((await client.next()).error.type).to.equal('conversation_item_not_found');
  });
});
