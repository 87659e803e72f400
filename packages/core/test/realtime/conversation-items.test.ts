import { expect } from 'chai';
import { startTextSession, userText } from './support/session-harness.js';

describe('realtime conversation items', () => {
  it('adds a user message with the client id preserved, answered by conversation.item.added, and never responds', async () => {
    const h = await startTextSession();
    await h.send({ type: 'conversation.item.create', item: userText('Hello', 'msg_1') });
    expect(h.out.take()).to.deep.equal([
      {
        type: 'conversation.item.added',
        event_id: h.out.events[0]!.event_id,
        previous_item_id: null,
        item: {
          id: 'msg_1',
          object: 'realtime.item',
          type: 'message',
          status: 'completed',
          role: 'user',
          content: [{ type: 'input_text', text: 'Hello' }],
        },
      },
    ]);
    expect(h.lm.requests).to.have.length(0);
  });

  it('generates an id when omitted and appends at the end (null or omitted previous_item_id)', async () => {
    const h = await startTextSession();
    await h.send({ type: 'conversation.item.create', item: userText('one', 'a') });
    await h.send({ type: 'conversation.item.create', previous_item_id: null, item: userText('two') });
    const [, second] = h.out.take();
    expect(second!.previous_item_id).to.equal('a');
    expect((second!.item as any).id).to.match(/^item_/);
  });

  it('inserts after previous_item_id and rejects an unknown previous id with invalid_previous_item_id', async () => {
    const h = await startTextSession();
    await h.send({ type: 'conversation.item.create', item: userText('one', 'a') });
    await h.send({ type: 'conversation.item.create', item: userText('three', 'c') });
    await h.send({ type: 'conversation.item.create', previous_item_id: 'a', item: userText('two', 'b') });
    expect(h.out.last('conversation.item.added').previous_item_id).to.equal('a');
    expect(h.engine.conversation.entries().map((e) => e.item.id)).to.deep.equal(['a', 'b', 'c']);
    h.out.take();
    await h.send({ type: 'conversation.item.create', event_id: 'e9', previous_item_id: 'zzz', item: userText('x', 'x') });
    expect(h.out.take()).to.deep.equal([
      {
        type: 'error',
        event_id: h.out.events[h.out.events.length - 1]!.event_id,
        error: {
          type: 'invalid_previous_item_id',
          code: 'invalid_previous_item_id',
          message: "Previous item with id 'zzz' does not exist.",
          param: 'previous_item_id',
          event_id: 'e9',
        },
      },
    ]);
    expect(h.engine.conversation.has('x')).to.equal(false);
    expect(h.out.closed).to.equal(null);
  });

  it("inserts at the start with previous_item_id 'root'", async () => {
    const h = await startTextSession();
    await h.send({ type: 'conversation.item.create', item: userText('second', 'b') });
    await h.send({ type: 'conversation.item.create', previous_item_id: 'root', item: userText('first', 'a') });
    expect(h.out.last('conversation.item.added').previous_item_id).to.equal(null);
    expect(h.engine.conversation.entries().map((e) => e.item.id)).to.deep.equal(['a', 'b']);
  });

  it('rejects a duplicate item id with conversation_item_duplicate_id', async () => {
    const h = await startTextSession();
    await h.send({ type: 'conversation.item.create', item: userText('one', 'dup') });
    await h.send({ type: 'conversation.item.create', item: userText('two', 'dup') });
    expect(h.out.types()).to.deep.equal(['conversation.item.added', 'error']);
    expect((h.out.events[1]!.error as any).type).to.equal('conversation_item_duplicate_id');
    expect(h.engine.conversation.size).to.equal(1);
  });

  it('accepts assistant text (type text or output_text), function_call and function_call_output items', async () => {
    const h = await startTextSession();
    await h.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Hi!' }] },
    });
    await h.send({
      type: 'conversation.item.create',
      item: { type: 'function_call', id: 'fc', call_id: 'call_1', name: 'lookup', arguments: '{"q":1}' },
    });
    await h.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'call_1', output: '{"ok":true}' } });
    const items = h.out.all('conversation.item.added').map((e) => e.item as any);
    expect(items[0].content).to.deep.equal([{ type: 'output_text', text: 'Hi!' }]);
    expect(items[1]).to.deep.equal({
      id: 'fc',
      object: 'realtime.item',
      type: 'function_call',
      status: 'completed',
      call_id: 'call_1',
      name: 'lookup',
      arguments: '{"q":1}',
    });
    expect(items[2]).to.deep.include({ type: 'function_call_output', call_id: 'call_1', output: '{"ok":true}' });
  });

  it('rejects the system role with an error, then closes the session', async () => {
    const h = await startTextSession();
    await h.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'x' }] },
    });
    expect(h.out.types()).to.deep.equal(['error']);
    expect(h.out.events[0]!.error).to.deep.include({ type: 'invalid_request_error', code: 'system_role_unsupported', param: 'item.role' });
    expect(h.out.closed).to.deep.include({ ending: 'system_message' });
  });

  it('skips items with non-text content', async () => {
    const h = await startTextSession();
    await h.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', id: 'aud', content: [{ type: 'input_audio', audio: 'AAAA' }] },
    });
    expect(h.out.take()).to.deep.equal([]);
    expect(h.engine.conversation.has('aud')).to.equal(false);
  });

  it('retrieves the full server copy or answers conversation_item_not_found', async () => {
    const h = await startTextSession();
    await h.send({ type: 'conversation.item.create', item: userText('keep me', 'k') });
    h.out.take();
    await h.send({ type: 'conversation.item.retrieve', item_id: 'k' });
    const [retrieved] = h.out.take();
    expect(retrieved).to.deep.include({ type: 'conversation.item.retrieved' });
    expect((retrieved!.item as any).content).to.deep.equal([{ type: 'input_text', text: 'keep me' }]);
    await h.send({ type: 'conversation.item.retrieve', item_id: 'missing', event_id: 'r1' });
    expect(h.out.take()[0]!.error).to.deep.equal({
      type: 'conversation_item_not_found',
      code: 'conversation_item_not_found',
      message: "Conversation item with id 'missing' does not exist.",
      param: 'item_id',
      event_id: 'r1',
    });
  });

  it('deletes items (conversation.item.deleted) and reports unknown ids', async () => {
    const h = await startTextSession();
    await h.send({ type: 'conversation.item.create', item: userText('bye', 'd') });
    h.out.take();
    await h.send({ type: 'conversation.item.delete', item_id: 'd' });
    expect(h.out.take().map((e) => [e.type, e.item_id])).to.deep.equal([['conversation.item.deleted', 'd']]);
    await h.send({ type: 'conversation.item.delete', item_id: 'd' });
    expect((h.out.take()[0]!.error as any).type).to.equal('conversation_item_not_found');
  });

  it('answers truncate in a text-only session as a no-op with audio_end_ms 0', async () => {
    const h = await startTextSession();
    await h.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'assistant', id: 'as', content: [{ type: 'output_text', text: 'long answer' }] },
    });
    h.out.take();
    await h.send({ type: 'conversation.item.truncate', item_id: 'as', content_index: 0, audio_end_ms: 1500 });
    expect(h.out.take().map(({ event_id: _e, ...rest }) => rest)).to.deep.equal([
      { type: 'conversation.item.truncated', item_id: 'as', content_index: 0, audio_end_ms: 0 },
    ]);
    expect((h.engine.conversation.get('as')!.item as any).content[0].text).to.equal('long answer');
    await h.send({ type: 'conversation.item.truncate', item_id: 'nope', content_index: 0, audio_end_ms: 0 });
    expect((h.out.take()[0]!.error as any).type).to.equal('conversation_item_not_found');
  });

  it('truncate checks its own fields before looking the item up: missing_required_parameter, not conversation_item_not_found', async () => {
    const h = await startTextSession();
    const cases: [unknown, string, string][] = [
      [{ type: 'conversation.item.truncate', item_id: 'nope' }, 'missing_required_parameter', 'content_index'],
      [{ type: 'conversation.item.truncate', item_id: 'nope', content_index: 0 }, 'missing_required_parameter', 'audio_end_ms'],
      [{ type: 'conversation.item.truncate', item_id: 'nope', audio_end_ms: 0 }, 'missing_required_parameter', 'content_index'],
      [{ type: 'conversation.item.truncate', content_index: 0, audio_end_ms: 0 }, 'missing_required_parameter', 'item_id'],
      [{ type: 'conversation.item.truncate', item_id: 'nope', content_index: 0, audio_end_ms: -1 }, 'invalid_value', 'audio_end_ms'],
      [
        { type: 'conversation.item.truncate', item_id: 'nope', content_index: 0, audio_end_ms: 0 },
        'conversation_item_not_found',
        'item_id',
      ],
    ];
    for (const [event, code, param] of cases) {
      await h.send(event);
      const [err] = h.out.take();
      expect(err!.error, JSON.stringify(event)).to.deep.include({ code, param });
    }
    expect(h.out.closed).to.equal(null);
  });

  it('reports malformed items and missing fields as errors with the parameter path', async () => {
    const h = await startTextSession();
    const cases: [unknown, string][] = [
      [{ type: 'conversation.item.create' }, 'item'],
      [{ type: 'conversation.item.create', item: { type: 'message', role: 'user' } }, 'item.content'],
      [{ type: 'conversation.item.create', item: { type: 'function_call', name: 'x' } }, 'item.call_id'],
      [{ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'c' } }, 'item.output'],
      [{ type: 'conversation.item.create', item: { type: 'reasoning' } }, 'item.type'],
      [{ type: 'conversation.item.create', item: userText('x'), previous_item_id: 5 }, 'previous_item_id'],
      [{ type: 'conversation.item.truncate', item_id: 'x' }, 'content_index'],
      [{ type: 'conversation.item.truncate', item_id: 'x', content_index: 0 }, 'audio_end_ms'],
      [{ type: 'conversation.item.retrieve' }, 'item_id'],
    ];
    for (const [event, param] of cases) {
      await h.send(event);
      const [err] = h.out.take();
      expect(err!.type, JSON.stringify(event)).to.equal('error');
      expect((err!.error as any).param, JSON.stringify(event)).to.equal(param);
    }
    expect(h.out.closed).to.equal(null);
  });
});
