import { expect } from 'chai';
import { RealtimeClient, openSession, takeViolations } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';

async function firstUpdate(s: RealtimeTestServer, session: Record<string, unknown>) {
  const client = RealtimeClient.connect(s.wsUrl, { apiKey: s.apiKey });
  client.send({ type: 'session.update', session });
  const first = await client.next();
  return { client, first };
}

async function expectRejected(s: RealtimeTestServer, session: Record<string, unknown>, param: string) {
  const { client, first } = await firstUpdate(s, { model: 'svc-realtime', ...session });
  expect(first.type, JSON.stringify(session)).to.equal('error');
  expect(first.error.param, JSON.stringify(session)).to.equal(param);
  expect(first.error.message).to.be.a('string');
  const closed = await client.closed;
  expect(closed.code).to.equal(1000);
  expect(client.events).to.have.length(1);
}

describe('realtime e2e: session configuration (session.update)', function () {
  this.timeout(30_000);
  let s: RealtimeTestServer;
  before(async () => {
    s = await startRealtimeServer();
  });
  after(async () => s?.close());
  afterEach(() => expect(takeViolations()).to.deep.equal([]));

  it('session.created carries the full effective GA session object', async () => {
    const { client, first } = await firstUpdate(s, { type: 'realtime', model: 'svc-realtime' });
    expect(first.type).to.equal('session.created');
    const session = first.session;
    expect(Object.keys(session).sort()).to.deep.equal(
      [
        'audio',
        'expires_at',
        'id',
        'include',
        'instructions',
        'max_output_tokens',
        'model',
        'object',
        'output_modalities',
        'prompt',
        'temperature',
        'tool_choice',
        'tools',
        'tracing',
        'truncation',
        'type',
      ].sort(),
    );
    expect(session).to.deep.include({
      type: 'realtime',
      object: 'realtime.session',
      model: 'svc-realtime',
      output_modalities: ['audio'],
      tools: [],
      tool_choice: 'auto',
      temperature: 0.7,
      max_output_tokens: 'inf',
      truncation: 'auto',
    });
    expect(session.audio.input.format).to.deep.equal({ type: 'audio/pcm', rate: 24000 });
    expect(session.audio.input.turn_detection).to.deep.include({ type: 'server_vad', threshold: 0.55, min_speech_duration: 0.125 });
    expect(session.audio.output).to.deep.equal({ format: { type: 'audio/pcm', rate: 24000 }, voice: 'default', speed: 1 });
    expect(session.expires_at).to.be.a('number');
    await client.close();
  });

  it('later updates answer session.updated with the merged configuration', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey);
    const tool = {
      type: 'function',
      name: 'get_weather',
      description: 'Weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    };
    client.send({
      type: 'session.update',
      session: {
        instructions: 'Be brief.',
        temperature: 1.1,
        max_output_tokens: 9999,
        truncation: 'disabled',
        tools: [tool],
        tool_choice: 'auto',
        audio: {
          input: {
            format: { type: 'audio/pcmu' },
            noise_reduction: { type: 'near_field' },
            transcription: { model: 'svc-stt-3.1', language: 'en', prompt: 'ignored', keywords: ['x'], languages: ['en'], delay: 'low' },
            turn_detection: {
              type: 'server_vad',
              threshold: 0.7,
              prefix_padding_ms: 200,
              silence_duration_ms: 800,
              min_speech_duration: 0.3,
              create_response: false,
              interrupt_response: false,
            },
          },
          output: { format: { type: 'audio/opus', frame_size_ms: 20 }, voice: 'slt' },
        },
      },
    });
    const updated = await client.next();
    expect(updated.type).to.equal('session.updated');
    const session = updated.session;
    expect(session).to.deep.include({
      instructions: 'Be brief.',
      temperature: 1.1,
      max_output_tokens: 4096,
      truncation: 'disabled',
      output_modalities: ['text'],
    });
    expect(session.tools).to.deep.equal([tool]);
    expect(session.audio.input).to.deep.equal({
      format: { type: 'audio/pcmu' },
      noise_reduction: { type: 'near_field' },
      transcription: { model: 'svc-stt-3.1', language: 'en' },
      turn_detection: {
        type: 'server_vad',
        threshold: 0.7,
        prefix_padding_ms: 200,
        silence_duration_ms: 800,
        min_speech_duration: 0.3,
        create_response: false,
        interrupt_response: false,
        // the interruption extension's defaults (docs/realtime.md, "Interruptions"), echoed whole
        min_interruption_duration: 0.8,
        min_interruption_words: 2,
        resume_false_interruption: true,
        interruption_events: false,
      },
    });
    expect(session.audio.output).to.deep.equal({ format: { type: 'audio/opus', frame_size_ms: 20 }, voice: 'slt', speed: 1 });
    client.send({
      type: 'session.update',
      session: { max_output_tokens: 'inf', audio: { input: { turn_detection: { type: 'semantic_vad', eagerness: 'low' } } } },
    });
    const again = (await client.next()).session;
    expect(again.max_output_tokens).to.equal('inf');
    expect(again.audio.input.turn_detection).to.deep.include({ type: 'semantic_vad', eagerness: 'low' });
    await client.close();
  });

  it('an explicit session.model wins over ?model=; neither on the first update: error then close', async () => {
    const explicit = RealtimeClient.connect(s.wsUrl, { apiKey: s.apiKey, query: '?model=other-model' });
    explicit.send({ type: 'session.update', session: { model: 'svc-realtime' } });
    expect((await explicit.next()).type).to.equal('session.created');
    await explicit.close();
    await expectRejected(s, { model: undefined }, 'session.model');
  });

  const rejected: [string, Record<string, unknown>, string][] = [
    ['include', { include: ['item.input_audio_transcription.logprobs'] }, 'session.include'],
    ['prompt', { prompt: { id: 'pmpt_123' } }, 'session.prompt'],
    ['tracing', { tracing: 'auto' }, 'session.tracing'],
    [
      'turn_detection.idle_timeout_ms',
      { audio: { input: { turn_detection: { type: 'server_vad', idle_timeout_ms: 6000 } } } },
      'session.audio.input.turn_detection.idle_timeout_ms',
    ],
    ['audio/pcma', { audio: { input: { format: { type: 'audio/pcma' } } } }, 'session.audio.input.format.type'],
    ['mixed output modalities', { output_modalities: ['text', 'audio'] }, 'session.output_modalities'],
    [
      'MCP tools',
      { tools: [{ type: 'mcp', server_label: 'deepwiki', server_url: 'https://mcp.deepwiki.com/mcp', require_approval: 'never' }] },
      'session.tools[0].type',
    ],
    ['transcription-only sessions', { type: 'transcription' }, 'session.type'],
    ['an unknown output voice', { audio: { output: { voice: 'voice_doesnotexist' } } }, 'session.audio.output.voice'],
    ['an unsupported model', { model: 'gpt-realtime' }, 'session.model'],
    ['a truncation object', { truncation: { type: 'retention_ratio', retention_ratio: 0.8 } }, 'session.truncation'],
  ];
  for (const [name, session, param] of rejected) {
    it(`rejects ${name}: error, then the session closes`, async () => expectRejected(s, session, param));
  }

  it('rejects an invalid later update with error and close', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey);
    client.send({ type: 'session.update', session: { tracing: 'auto' } });
    expect((await client.next()).type).to.equal('error');
    expect((await client.closed).code).to.equal(1000);
  });

  it('accepts a preset output voice', async () => {
    const { client, first } = await firstUpdate(s, { model: 'svc-realtime', audio: { output: { voice: 'slt' } } });
    expect(first.type).to.equal('session.created');
    expect(first.session.audio.output.voice).to.equal('slt');
    await client.close();
  });
});
