// @test-tier light: mostly waits on realtime sessions
import { expect } from 'chai';
import { openSession, pcmBase64, userText, takeViolations, type RealtimeClient, type ServerEvent } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';

const TEXT_RESPONSE = [
  'response.created',
  'response.output_item.added',
  'conversation.item.added',
  'response.content_part.added',
  'response.output_text.delta',
];
const TEXT_RESPONSE_END = ['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.done'];

async function response(client: RealtimeClient, create: Record<string, unknown> = { type: 'response.create' }) {
  client.send(create);
  // Spoken replies leave at the pace of playback: allow for the reply's real length.
  const { event: done, skipped } = await client.until('response.done', 20_000);
  return { done, events: [...skipped, done] };
}

describe('realtime e2e: responses with the embedded model', function () {
  this.timeout(30_000);
  let s: RealtimeTestServer;
  before(async () => {
    s = await startRealtimeServer({ env: { SVC_LLM_DEMO_TOKEN_DELAY_MS: '15' } });
  });
  after(async () => s?.close());
  afterEach(() => expect(takeViolations()).to.deep.equal([]));

  it('streams a text response with the GA item and content-part events; response.done has usage and status_details null', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey);
    client.send({ type: 'conversation.item.create', item: userText('The sky is blue', 'u1') });
    await client.next();
    const { events, done } = await response(client);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 5)).to.deep.equal(TEXT_RESPONSE);
    expect(types.slice(-4)).to.deep.equal(TEXT_RESPONSE_END);
    expect(new Set(types.slice(4, -4))).to.deep.equal(new Set(['response.output_text.delta']));
    const deltas = events
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => e.delta)
      .join('');
    expect(deltas).to.equal('You said: "The sky is blue".');
    expect(events.find((e) => e.type === 'response.output_text.done')!.text).to.equal(deltas);
    expect(events[2]!.previous_item_id).to.equal('u1');
    expect(done.response).to.deep.include({
      object: 'realtime.response',
      status: 'completed',
      status_details: null,
      usage: null,
      metadata: null,
    });
    expect(done.response.output[0]).to.deep.include({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: deltas }],
    });
    for (const e of events) expect(e.event_id).to.be.a('string');
    await client.close();
  });

  it('per-response overrides: instructions, input appended, temperature, max_output_tokens, metadata only on response.created', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey);
    const { events, done } = await response(client, {
      type: 'response.create',
      response: {
        instructions: 'Say exactly: "Overridden!"',
        input: [userText('ignored by the instruction', 'in_1')],
        temperature: 0.3,
        max_output_tokens: 5000,
        metadata: { purpose: 'test' },
      },
    });
    expect(events[0]!.type).to.equal('conversation.item.added');
    expect(events[0]!.item.id).to.equal('in_1');
    const created = events.find((e) => e.type === 'response.created')!;
    expect(created.response.metadata).to.deep.equal({ purpose: 'test' });
    expect(created.response.max_output_tokens).to.equal(4096);
    expect(done.response.metadata).to.equal(null);
    expect(events.find((e) => e.type === 'response.output_text.done')!.text).to.equal('Overridden!');
    client.send({ type: 'conversation.item.retrieve', item_id: 'in_1' });
    expect((await client.next()).type).to.equal('conversation.item.retrieved');
    // Without the override the session instructions apply again.
    const second = await response(client);
    expect(second.events.find((e) => e.type === 'response.output_text.done')!.text).to.equal('You said: "ignored by the instruction".');
    const limited = await response(client, { type: 'response.create', response: { max_output_tokens: 2 } });
    expect(limited.events.find((e) => e.type === 'response.output_text.done')!.text).to.equal('You said: ');
    await client.close();
  });

  it('streams a function call when the user names a session tool, then answers from the tool output', async () => {
    const tool = {
      type: 'function',
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    };
    const { client } = await openSession(s.wsUrl, s.apiKey, { tools: [tool] });
    client.send({ type: 'conversation.item.create', item: userText('Please use get_weather for Paris') });
    await client.next();
    const { events, done } = await response(client);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 3)).to.deep.equal(['response.created', 'response.output_item.added', 'conversation.item.added']);
    expect(types.slice(-4)).to.deep.equal([
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.done',
    ]);
    const added = events[1]!;
    expect(added.item).to.deep.include({ type: 'function_call', status: 'in_progress', name: 'get_weather', arguments: '' });
    const argsDone = events.find((e) => e.type === 'response.function_call_arguments.done')!;
    const joined = events
      .filter((e) => e.type === 'response.function_call_arguments.delta')
      .map((e) => e.delta)
      .join('');
    expect(argsDone).to.deep.include({
      item_id: added.item.id,
      call_id: added.item.call_id,
      name: 'get_weather',
      arguments: joined,
      output_index: 0,
    });
    expect(JSON.parse(joined)).to.deep.equal({ city: 'Paris' });
    expect(done.response.output[0]).to.deep.include({ type: 'function_call', status: 'completed', arguments: joined });
    client.send({
      type: 'conversation.item.create',
      item: { type: 'function_call_output', call_id: added.item.call_id, output: '{"temperature":18}' },
    });
    await client.next();
    const answer = await response(client);
    expect(answer.events.find((e) => e.type === 'response.output_text.done')!.text).to.equal(
      'I called the get_weather tool. It returned: {"temperature":18}',
    );
    await client.close();
  });

  it('response.cancel ends the response with status cancelled; response_id_mismatch and response_not_active', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey);
    client.send({ type: 'response.cancel', event_id: 'c0' });
    const notActive = await client.next();
    expect(notActive.error).to.deep.include({ type: 'invalid_request_error', code: 'response_not_active', event_id: 'c0' });
    client.send({ type: 'conversation.item.create', item: userText('one two three four five six seven eight nine ten eleven twelve') });
    await client.next();
    client.send({ type: 'response.create' });
    const created = await client.next();
    expect(created.type).to.equal('response.created');
    await client.until('response.output_text.delta');
    client.send({ type: 'response.cancel', response_id: 'resp_not_this_one' });
    const { event: mismatch } = await client.until('error');
    expect(mismatch.error.code).to.equal('response_id_mismatch');
    client.send({ type: 'response.cancel', response_id: created.response.id });
    const { event: done } = await client.until('response.done');
    expect(done.response).to.deep.include({ id: created.response.id, status: 'cancelled', status_details: null, usage: null });
    expect(done.response.output[0].status).to.equal('incomplete');
    await client.close();
  });

  it('manual turns: response.create and commit during a response give voice_output_task_ongoing', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey);
    client.send({ type: 'conversation.item.create', item: userText('a b c d e f g h i j k l m n o p') });
    await client.next();
    client.send({ type: 'input_audio_buffer.append', audio: pcmBase64(200) });
    client.send({ type: 'response.create' });
    await client.until('response.created');
    client.send({ type: 'response.create', event_id: 'second' });
    client.send({ type: 'input_audio_buffer.commit', event_id: 'commit' });
    const { event: e1 } = await client.until('error');
    const { event: e2 } = await client.until('error');
    expect([e1.error.type, e1.error.event_id, e2.error.type, e2.error.event_id]).to.deep.equal([
      'voice_output_task_ongoing',
      'second',
      'voice_output_task_ongoing',
      'commit',
    ]);
    const { event: done } = await client.until('response.done');
    expect(done.response.status).to.equal('completed');
    await client.close();
  });

  it('server VAD: response.create interrupts the response in flight first', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey, { audio: { input: { turn_detection: { type: 'server_vad' } } } });
    client.send({ type: 'conversation.item.create', item: userText('a b c d e f g h i j k l m n o p') });
    await client.next();
    client.send({ type: 'response.create' });
    const first = (await client.until('response.created')).event.response.id;
    client.send({ type: 'response.create' });
    const { event: done1 } = await client.until('response.done');
    expect(done1.response).to.deep.include({ id: first, status: 'cancelled' });
    const second = (await client.until('response.created')).event.response.id;
    expect(second).to.not.equal(first);
    const { event: done2 } = await client.until('response.done');
    expect(done2.response).to.deep.include({ id: second, status: 'completed' });
    await client.close();
  });

  it('input_audio_buffer append/commit/clear: committed + item added (no response), cleared, empty commit error, oversize append error', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey, {
      audio: { input: { turn_detection: null, format: { type: 'audio/pcm', rate: 16000 } } },
    });
    client.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 16000) });
    await client.expectQuiet(100);
    client.send({ type: 'input_audio_buffer.commit' });
    const [committed, added] = await client.take(2);
    expect(committed!.type).to.equal('input_audio_buffer.committed');
    expect(committed!.previous_item_id).to.equal(null);
    expect(added!.type).to.equal('conversation.item.added');
    expect(added!.item).to.deep.equal({
      id: committed!.item_id,
      object: 'realtime.item',
      type: 'message',
      status: 'completed',
      role: 'user',
      content: [{ type: 'input_audio', transcript: '' }],
    });
    await client.expectQuiet(200);
    client.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 16000) });
    client.send({ type: 'input_audio_buffer.clear' });
    expect((await client.next()).type).to.equal('input_audio_buffer.cleared');
    client.send({ type: 'input_audio_buffer.commit' });
    expect((await client.next()).error.code).to.equal('input_audio_buffer_commit_empty');
    client.send({ type: 'input_audio_buffer.append', audio: 'A'.repeat(1_048_580) });
    expect((await client.next()).error.code).to.equal('audio_chunk_too_large');
    client.send({ type: 'input_audio_buffer.append', audio: 'A'.repeat(1_048_576) });
    await client.expectQuiet(200);
    // pcmu input is mu-law at 8 kHz: 1600 bytes are 200 ms.
    client.send({ type: 'session.update', session: { audio: { input: { format: { type: 'audio/pcmu' } } } } });
    expect((await client.next()).type).to.equal('session.updated');
    client.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(1600, 0xff).toString('base64') });
    client.send({ type: 'input_audio_buffer.commit' });
    expect((await client.next()).type).to.equal('input_audio_buffer.committed');
    await client.close();
  });

  it('conversation.item.input_audio_transcription.completed only when transcription.model is set', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey, {
      audio: { input: { turn_detection: null, transcription: { model: 'svc-stt-3.1', language: 'en' } } },
    });
    client.send({ type: 'input_audio_buffer.append', audio: pcmBase64(250) });
    client.send({ type: 'input_audio_buffer.commit' });
    const [committed, added, transcribed] = await client.take(3);
    expect([committed!.type, added!.type]).to.deep.equal(['input_audio_buffer.committed', 'conversation.item.added']);
    expect(transcribed!.type).to.equal('conversation.item.input_audio_transcription.completed');
    expect(transcribed).to.deep.include({ item_id: committed!.item_id, content_index: 0 });
    expect(transcribed!.transcript).to.be.a('string');
    client.send({ type: 'session.update', session: { audio: { input: { transcription: null } } } });
    expect((await client.next()).type).to.equal('session.updated');
    client.send({ type: 'input_audio_buffer.append', audio: pcmBase64(250) });
    client.send({ type: 'input_audio_buffer.commit' });
    expect((await client.take(2)).map((e) => e.type)).to.deep.equal(['input_audio_buffer.committed', 'conversation.item.added']);
    await client.expectQuiet(200);
    await client.close();
  });

  it('answers malformed JSON, unknown events and invalid fields with an error event, keeping the session', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey);
    client.send('{"type": "response.create"');
    expect((await client.next()).error).to.deep.include({ type: 'invalid_request_error', code: 'invalid_json', event_id: null });
    client.send({ type: 'response.teleport', event_id: 'u1' });
    expect((await client.next()).error).to.deep.include({ code: 'invalid_value', param: 'type', event_id: 'u1' });
    client.send({ type: 'input_audio_buffer.clear', event_id: 'u2', bogus: 1 });
    expect((await client.next()).error).to.deep.include({ code: 'unknown_parameter', param: 'bogus', event_id: 'u2' });
    client.send([1, 2, 3]);
    expect((await client.next()).error.code).to.equal('invalid_event');
    client.send({ type: 'input_audio_buffer.clear' });
    expect((await client.next()).type).to.equal('input_audio_buffer.cleared');
    await client.close();
  });

  it('audio output sessions stream the transcript with the audio item and part events', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey, { output_modalities: ['audio'] });
    client.send({ type: 'conversation.item.create', item: userText('hello') });
    await client.next();
    const { events, done } = await response(client);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).to.deep.equal([
      'response.created',
      'response.output_item.added',
      'conversation.item.added',
      'response.content_part.added',
    ]);
    expect(events[3]!.part).to.deep.equal({ type: 'audio', transcript: '' });
    expect(types).to.include('response.output_audio_transcript.delta');
    expect(types.slice(-5)).to.deep.equal([
      'response.output_audio.done',
      'response.output_audio_transcript.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.done',
    ]);
    expect(done.response.output[0].content[0].type).to.equal('output_audio');
    await client.close();
  });
});

describe('realtime e2e: conversation summarization', function () {
  this.timeout(30_000);
  let s: RealtimeTestServer;
  before(async () => {
    s = await startRealtimeServer({ env: { SVC_LLM_CONTEXT_WINDOW_TOKENS: '400' } });
  });
  after(async () => s?.close());
  afterEach(() => expect(takeViolations()).to.deep.equal([]));

  const text = (i: number) => `Fact number ${i} is important. ${'more words follow here '.repeat(7)}`.trim();

  it('truncation auto: older items are condensed in the background, originals stay retrievable', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey);
    const seen: ServerEvent[] = [];
    for (let i = 0; i < 8; i++) {
      client.send({ type: 'conversation.item.create', item: userText(text(i), `f${i}`) });
    }
    const { event: summarized, skipped } = await client.until('conversation.context.summarized');
    seen.push(...skipped);
    const summaryAdded = seen.find((e) => e.type === 'conversation.item.added' && e.item.id === summarized.summary_item_id)!;
    expect(summaryAdded.item.role).to.equal('system');
    expect(summaryAdded.item.content[0].text).to.contain('Fact number 0 is important.');
    expect(summarized.summarized_item_ids[0]).to.equal('f0');
    expect(summaryAdded.previous_item_id).to.equal(summarized.summarized_item_ids[summarized.summarized_item_ids.length - 1]);
    client.send({ type: 'conversation.item.retrieve', item_id: 'f0' });
    const { event: retrieved } = await client.until('conversation.item.retrieved');
    expect(retrieved.item.content[0].text).to.equal(text(0));
    await client.close();
  });

  it('truncation disabled: never summarizes', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey, { truncation: 'disabled' });
    for (let i = 0; i < 12; i++) client.send({ type: 'conversation.item.create', item: userText(text(i)) });
    await client.take(12);
    await client.expectQuiet(300);
    await client.close();
  });
});
