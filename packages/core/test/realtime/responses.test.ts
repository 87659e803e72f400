import { expect } from 'chai';
import { EngineError, InsufficientQuotaError } from '../../src/shared/errors.js';
import type { RealtimeServerEvent } from '../../src/realtime/index.js';
import { CountingQuota, FakeRecognizer, flush, pcmBase64, ScriptedLanguageModel } from '../fakes/index.js';
import { startTextSession, userText } from './support/session-harness.js';

const strip = (events: RealtimeServerEvent[]) => events.map(({ event_id: _e, ...rest }) => rest);

describe('realtime responses', () => {
  it('streams a text response with the GA event sequence and ends with response.done (usage and status_details null)', async () => {
    const h = await startTextSession();
    await h.send({ type: 'conversation.item.create', item: userText('hi', 'u1') });
    h.out.take();
    await h.send({ type: 'response.create' });
    const events = h.out.take();
    expect(events.map((e) => e.type)).to.deep.equal([
      'response.created',
      'response.output_item.added',
      'conversation.item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.done',
    ]);
    const ids = new Set(events.map((e) => e.event_id));
    expect(ids.size).to.equal(events.length);
    for (const e of events) expect(e.event_id).to.be.a('string');
    const [created, added, convAdded, partAdded, d1, , textDone, partDone, itemDone, done] = strip(events);
    const responseId = (created!.response as any).id;
    const itemId = (added!.item as any).id;
    expect(created).to.deep.equal({
      type: 'response.created',
      response: {
        object: 'realtime.response',
        id: responseId,
        status: 'in_progress',
        status_details: null,
        output: [],
        conversation_id: h.engine.conversationId,
        output_modalities: ['text'],
        max_output_tokens: 'inf',
        audio: { output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'default' } },
        usage: null,
        metadata: null,
      },
    });
    expect(added).to.deep.equal({
      type: 'response.output_item.added',
      response_id: responseId,
      output_index: 0,
      item: { id: itemId, object: 'realtime.item', type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    });
    expect(convAdded).to.deep.equal({ type: 'conversation.item.added', previous_item_id: 'u1', item: added!.item });
    const where = { response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 };
    expect(partAdded).to.deep.equal({ type: 'response.content_part.added', ...where, part: { type: 'text', text: '' } });
    expect(d1).to.deep.equal({ type: 'response.output_text.delta', ...where, delta: 'Hello' });
    expect(textDone).to.deep.equal({ type: 'response.output_text.done', ...where, text: 'Hello there.' });
    expect(partDone).to.deep.equal({ type: 'response.content_part.done', ...where, part: { type: 'text', text: 'Hello there.' } });
    const finalItem = {
      id: itemId,
      object: 'realtime.item',
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Hello there.' }],
    };
    expect(itemDone).to.deep.equal({ type: 'response.output_item.done', response_id: responseId, output_index: 0, item: finalItem });
    expect(done).to.deep.equal({
      type: 'response.done',
      response: { ...(created!.response as object), status: 'completed', output: [finalItem], metadata: null },
    });
    expect(h.lm.requests[0]!.messages).to.deep.equal([
      { role: 'system', content: 'You are a helpful voice assistant. Keep your answers short and conversational.' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('applies per-response overrides: instructions, input appended to the conversation, temperature, max_output_tokens, metadata on response.created only', async () => {
    const h = await startTextSession();
    await h.send({
      type: 'response.create',
      response: {
        instructions: 'Answer in French.',
        input: [userText('Bonjour', 'in1')],
        temperature: 0.2,
        max_output_tokens: 9000,
        metadata: { topic: 'greeting' },
      },
    });
    const events = h.out.take();
    expect(events[0]).to.deep.include({ type: 'conversation.item.added', previous_item_id: null });
    expect((events[0]!.item as any).id).to.equal('in1');
    const created = events.find((e) => e.type === 'response.created')!.response as any;
    expect(created.metadata).to.deep.equal({ topic: 'greeting' });
    expect(created.max_output_tokens).to.equal(4096);
    const done = events.find((e) => e.type === 'response.done')!.response as any;
    expect(done.metadata).to.equal(null);
    const req = h.lm.requests[0]!;
    expect(req.temperature).to.equal(0.2);
    expect(req.maxOutputTokens).to.equal(4096);
    expect(req.messages).to.deep.equal([
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'Bonjour' },
    ]);
    expect(h.engine.conversation.has('in1')).to.equal(true);
    await h.send({ type: 'response.create' });
    expect(h.lm.requests[1]!.temperature).to.equal(0.7);
    expect(h.lm.requests[1]!.maxOutputTokens).to.equal(null);
  });

  it('streams function calls with argument deltas and GA item events', async () => {
    const lm = new ScriptedLanguageModel([
      { type: 'tool_call', index: 0, callId: 'call_9', name: 'get_weather' },
      { type: 'tool_call_arguments', index: 0, delta: '{"city":' },
      { type: 'tool_call_arguments', index: 0, delta: '"Paris"}' },
    ]);
    const h = await startTextSession({ lm }, { tools: [{ type: 'function', name: 'get_weather', description: '', parameters: {} }] });
    await h.send({ type: 'response.create' });
    const events = strip(h.out.take());
    expect(events.map((e) => e.type)).to.deep.equal([
      'response.created',
      'response.output_item.added',
      'conversation.item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.done',
    ]);
    const responseId = (events[0]!.response as any).id;
    const itemId = (events[1]!.item as any).id;
    expect(events[1]!.item).to.deep.equal({
      id: itemId,
      object: 'realtime.item',
      type: 'function_call',
      status: 'in_progress',
      call_id: 'call_9',
      name: 'get_weather',
      arguments: '',
    });
    expect(events[3]).to.deep.equal({
      type: 'response.function_call_arguments.delta',
      response_id: responseId,
      item_id: itemId,
      output_index: 0,
      call_id: 'call_9',
      delta: '{"city":',
    });
    expect(events[5]).to.deep.equal({
      type: 'response.function_call_arguments.done',
      response_id: responseId,
      item_id: itemId,
      output_index: 0,
      call_id: 'call_9',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
    expect((events[7]!.response as any).output[0]).to.deep.include({
      type: 'function_call',
      status: 'completed',
      arguments: '{"city":"Paris"}',
    });
    expect(h.lm.requests[0]!.tools).to.deep.equal([{ name: 'get_weather', description: '', parameters: {} }]);

    // The tool result goes back as function_call_output; the next request pairs it with the call.
    await h.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'call_9', output: '{"temp":21}' } });
    await h.send({ type: 'response.create' });
    expect(h.lm.requests[1]!.messages.slice(1)).to.deep.equal([
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_9', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', toolCallId: 'call_9', content: '{"temp":21}' },
    ]);
  });

  it('cancels the active response: response.done with status cancelled, items incomplete', async () => {
    const lm = new ScriptedLanguageModel([
      { type: 'text', delta: 'One ' },
      { type: 'text', delta: 'two' },
    ]);
    lm.holdAfter = 1;
    const h = await startTextSession({ lm });
    await h.send({ type: 'response.create' });
    const responseId = (h.out.last('response.created').response as any).id;
    h.out.take();
    await h.send({ type: 'response.cancel', response_id: responseId });
    const events = h.out.take();
    expect(events.map((e) => e.type)).to.deep.equal([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.done',
    ]);
    const done = events[3]!.response as any;
    expect(done.status).to.equal('cancelled');
    expect(done.status_details).to.equal(null);
    expect(done.usage).to.equal(null);
    expect(done.output[0]).to.deep.include({ status: 'incomplete', content: [{ type: 'output_text', text: 'One ' }] });
    expect(lm.requests[0]!.signal.aborted).to.equal(true);
  });

  it('answers response.cancel with response_not_active or response_id_mismatch', async () => {
    const lm = new ScriptedLanguageModel([
      { type: 'text', delta: 'a' },
      { type: 'text', delta: 'b' },
    ]);
    const h = await startTextSession({ lm });
    await h.send({ type: 'response.cancel', event_id: 'c1' });
    expect(h.out.take()[0]!.error).to.deep.equal({
      type: 'invalid_request_error',
      code: 'response_not_active',
      message: 'There is no active response to cancel.',
      param: 'response_id',
      event_id: 'c1',
    });
    lm.holdAfter = 1;
    await h.send({ type: 'response.create' });
    h.out.take();
    await h.send({ type: 'response.cancel', response_id: 'resp_other' });
    const [err] = h.out.take();
    expect((err!.error as any).code).to.equal('response_id_mismatch');
    await h.send({ type: 'response.cancel' });
    expect((h.out.last('response.done').response as any).status).to.equal('cancelled');
  });

  it('with manual turns, refuses response.create and commit while a response is active (voice_output_task_ongoing)', async () => {
    const lm = new ScriptedLanguageModel([
      { type: 'text', delta: 'a' },
      { type: 'text', delta: 'b' },
    ]);
    lm.holdAfter = 1;
    const h = await startTextSession({ lm });
    await h.send({ type: 'response.create' });
    h.out.take();
    await h.send({ type: 'response.create', event_id: 'second' });
    await h.send({ type: 'input_audio_buffer.commit', event_id: 'commit' });
    const errors = h.out.take().map((e) => e.error as any);
    expect(errors.map((e) => [e.type, e.event_id])).to.deep.equal([
      ['voice_output_task_ongoing', 'second'],
      ['voice_output_task_ongoing', 'commit'],
    ]);
    expect(lm.requests).to.have.length(1);
    lm.release();
    await flush();
    expect(h.out.last('response.done')).to.exist;
  });

  it('with server VAD, a commit during a response is accepted (not voice_output_task_ongoing)', async () => {
    const lm = new ScriptedLanguageModel([
      { type: 'text', delta: 'a' },
      { type: 'text', delta: 'b' },
    ]);
    lm.holdAfter = 1;
    const h = await startTextSession(
      { lm, audio: { speechRecognizer: new FakeRecognizer('hi') } },
      { audio: { input: { turn_detection: { type: 'server_vad' } } } },
    );
    await h.send({ type: 'response.create' });
    h.out.take();
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 2000) });
    await h.send({ type: 'input_audio_buffer.commit', event_id: 'commit' });
    const types = h.out.take().map((e) => e.type);
    expect(types).to.include('input_audio_buffer.committed');
    expect(types).not.to.include('error');
    lm.release();
    await flush();
  });

  it('refuses to delete the item a response is still writing', async () => {
    const lm = new ScriptedLanguageModel([
      { type: 'text', delta: 'a' },
      { type: 'text', delta: 'b' },
    ]);
    lm.holdAfter = 1;
    const h = await startTextSession({ lm });
    await h.send({ type: 'response.create' });
    const itemId = (h.out.last('response.output_item.added').item as any).id;
    h.out.take();
    await h.send({ type: 'conversation.item.delete', item_id: itemId, event_id: 'del' });
    expect(h.out.take()[0]!.error as any).to.include({ code: 'invalid_value', event_id: 'del' });
    lm.release();
    await flush();
    await h.send({ type: 'conversation.item.delete', item_id: itemId });
    expect(h.out.last('conversation.item.deleted')).to.exist;
  });

  it('with server VAD, response.create interrupts the response in flight first', async () => {
    const lm = new ScriptedLanguageModel([
      { type: 'text', delta: 'a' },
      { type: 'text', delta: 'b' },
    ]);
    lm.holdAfter = 1;
    const h = await startTextSession({ lm }, { audio: { input: { turn_detection: { type: 'server_vad' } } } });
    await h.send({ type: 'response.create' });
    const first = (h.out.last('response.created').response as any).id;
    h.out.take();
    lm.holdAfter = null;
    await h.send({ type: 'response.create' });
    const events = h.out.take();
    const doneFirst = events.findIndex((e) => e.type === 'response.done' && (e.response as any).id === first);
    const createdSecond = events.findIndex((e) => e.type === 'response.created');
    expect(doneFirst).to.be.greaterThan(-1);
    expect((events[doneFirst]!.response as any).status).to.equal('cancelled');
    expect(createdSecond).to.be.greaterThan(doneFirst);
    expect((events[events.length - 1]!.response as any).status).to.equal('completed');
  });

  it('reports an upstream failure mid-stream as an error event and still ends the response cleanly', async () => {
    const lm = new ScriptedLanguageModel([
      { type: 'text', delta: 'partial' },
      { type: 'text', delta: ' more' },
    ]);
    lm.failAfter = { count: 1, error: new EngineError('upstream closed the stream') };
    const h = await startTextSession({ lm });
    await h.send({ type: 'response.create' });
    const types = h.out.types();
    expect(types).to.include('error');
    expect(types[types.length - 1]).to.equal('response.done');
    expect(h.out.last('error').error).to.deep.include({
      type: 'server_error',
      code: 'engine_error',
      message: 'upstream closed the stream',
    });
    expect((h.out.last('response.done').response as any).status).to.equal('cancelled');
    expect(h.out.closed).to.equal(null);
    lm.failAfter = null;
    await h.send({ type: 'response.create' });
    expect((h.out.last('response.done').response as any).status).to.equal('completed');
  });

  it('ends the session with insufficient_quota and close 4429 when the budget refuses a response', async () => {
    const h = await startTextSession({ quota: new CountingQuota(1) });
    await h.send({ type: 'response.create' });
    expect((h.out.last('response.done').response as any).status).to.equal('completed');
    h.out.take();
    await h.send({ type: 'response.create' });
    expect(strip(h.out.take())).to.deep.equal([
      {
        type: 'error',
        error: {
          type: 'insufficient_quota',
          code: 'insufficient_quota',
          message: 'Spending cap reached for this key.',
          param: null,
          event_id: null,
        },
      },
    ]);
    expect(h.out.closed).to.deep.equal({ ending: 'quota_refused', reason: 'insufficient quota' });
    expect(h.quota.calls.map((c) => c.resource)).to.deep.equal(['realtime.response', 'realtime.response']);
  });

  it('treats an upstream billing refusal during generation like a refused quota', async () => {
    const lm = new ScriptedLanguageModel([{ type: 'text', delta: 'x' }]);
    lm.failAfter = { count: 0, error: new InsufficientQuotaError('Upstream: You exceeded your current quota.') };
    const h = await startTextSession({ lm });
    await h.send({ type: 'response.create' });
    expect(h.out.last('error').error).to.deep.include({
      type: 'insufficient_quota',
      message: 'Upstream: You exceeded your current quota.',
    });
    expect(h.out.closed?.ending).to.equal('quota_refused');
  });

  it('rejects invalid overrides without side effects', async () => {
    const h = await startTextSession();
    const bad = [
      { instructions: 5 },
      { temperature: 9 },
      { max_output_tokens: 0 },
      { metadata: { k: 1 } },
      { input: [{ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'x' }] }] },
      { input: [{ type: 'function_call', call_id: 'c', name: 'n' }] },
      { tools: [{ type: 'mcp', server_label: 'x' }] },
      { tools: [{ type: 'function', name: 'f', parameters: { type: 'string' } }] },
      { output_modalities: ['text', 'audio'] },
      { audio: { output: { voice: 'slt' } } },
      { prompt: { id: 'p' } },
    ];
    for (const response of bad) {
      await h.send({ type: 'response.create', response });
      expect(
        h.out.take().map((e) => e.type),
        JSON.stringify(response),
      ).to.deep.equal(['error']);
    }
    expect(h.lm.requests).to.have.length(0);
    expect(h.engine.conversation.size).to.equal(0);
  });

  it('honours output_modalities, tools and tool_choice of response.create for that response only', async () => {
    const h = await startTextSession();
    const tool = {
      type: 'function',
      name: 'get_weather',
      description: 'Weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    };
    await h.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
    });
    h.out.take();
    await h.send({ type: 'response.create', response: { output_modalities: ['audio'], tools: [tool], tool_choice: 'required' } });
    await h.engine.handle({ type: 'conversation.item.retrieve', item_id: 'missing' });
    await new Promise((r) => setTimeout(r, 20));
    const created = h.out.all('response.created')[0]!.response as any;
    expect(created.output_modalities).to.deep.equal(['audio']);
    expect(h.lm.requests[0]!.tools.map((t: { name: string }) => t.name)).to.deep.equal(['get_weather']);
    expect(h.lm.requests[0]!.toolChoice).to.equal('required');
    h.out.take();
    await h.send({ type: 'response.create' });
    await new Promise((r) => setTimeout(r, 20));
    expect((h.out.all('response.created').at(-1)!.response as any).output_modalities).to.deep.equal(['text']);
    expect(h.lm.requests[1]!.tools).to.deep.equal([]);
  });
});
