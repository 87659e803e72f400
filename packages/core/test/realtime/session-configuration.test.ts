import { MAX_EVENTS_BEFORE_SESSION } from '../../src/realtime/engine/realtime-session-engine.js';
import { expect } from 'chai';
import { createHarness, startTextSession } from './support/session-harness.js';
import { flush } from '../fakes/index.js';

const MODEL = 'svc-realtime';

describe('realtime session configuration (session.update)', () => {
  it('sends nothing before the first session.update, then session.created with the full GA session object', async () => {
    const h = createHarness();
    h.clock.advance(60_000);
    await flush();
    expect(h.out.events).to.deep.equal([]);
    await h.send({ type: 'session.update', event_id: 'evt_1', session: { type: 'realtime', model: MODEL } });
    expect(h.out.types()).to.deep.equal(['session.created']);
    const event = h.out.events[0]!;
    expect(event.event_id).to.be.a('string').and.not.equal('evt_1');
    expect(event.session).to.deep.equal({
      type: 'realtime',
      object: 'realtime.session',
      id: h.engine.sessionId,
      model: MODEL,
      output_modalities: ['audio'],
      instructions: 'You are a helpful voice assistant. Keep your answers short and conversational.',
      tools: [],
      tool_choice: 'auto',
      temperature: 0.7,
      max_output_tokens: 'inf',
      truncation: 'auto',
      tracing: null,
      prompt: null,
      include: null,
      expires_at: Math.floor((h.clock.now() - 60_000) / 1000) + 1800,
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24000 },
          noise_reduction: null,
          transcription: null,
          turn_detection: {
            type: 'server_vad',
            threshold: 0.55,
            prefix_padding_ms: 300,
            silence_duration_ms: 500,
            min_speech_duration: 0.125,
            create_response: true,
            interrupt_response: true,
            min_interruption_duration: 0.8,
            min_interruption_words: 2,
            resume_false_interruption: true,
            interruption_events: false,
          },
        },
        output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'default', speed: 1 },
      },
    });
  });

  it('answers later updates with session.updated carrying the merged configuration', async () => {
    const h = await startTextSession();
    await h.send({ type: 'session.update', session: { instructions: 'Be brief.', temperature: 0.3 } });
    expect(h.out.types()).to.deep.equal(['session.updated']);
    const session = h.out.events[0]!.session as Record<string, unknown>;
    expect(session.instructions).to.equal('Be brief.');
    expect(session.temperature).to.equal(0.3);
    expect(session.output_modalities).to.deep.equal(['text']);
    expect((session.audio as any).input.turn_detection).to.equal(null);
  });

  it("accepts OpenAI's realtime model names (from the URL or session.model) only when the server enables the aliases", async () => {
    const strict = createHarness({ options: { urlModel: 'gpt-realtime' } });
    await strict.send({ type: 'session.update', session: { type: 'realtime' } });
    expect(strict.out.types()).to.deep.equal(['error']);
    expect(strict.out.events[0]!.error).to.deep.include({ param: 'session.model' });

    const fromUrl = createHarness({ options: { urlModel: 'gpt-realtime' }, deps: { openAiModelAliases: true } });
    await fromUrl.send({ type: 'session.update', session: { type: 'realtime' } });
    expect(fromUrl.out.types()).to.deep.equal(['session.created']);
    expect((fromUrl.out.events[0]!.session as any).model).to.equal('gpt-realtime');

    const dated = createHarness({ deps: { openAiModelAliases: true } });
    await dated.send({ type: 'session.update', session: { model: 'gpt-realtime-2025-08-28' } });
    expect(dated.out.types()).to.deep.equal(['session.created']);
    const wrongKind = createHarness({ deps: { openAiModelAliases: true } });
    await wrongKind.send({ type: 'session.update', session: { model: 'tts-1' } });
    expect(wrongKind.out.types()).to.deep.equal(['error']);
  });

  it('takes the model from the URL, lets an explicit session.model win, and fails without either', async () => {
    const fromUrl = createHarness({ options: { urlModel: MODEL } });
    await fromUrl.send({ type: 'session.update', session: { type: 'realtime' } });
    expect((fromUrl.out.events[0]!.session as any).model).to.equal(MODEL);

    const explicitWins = createHarness({ options: { urlModel: 'gpt-4o-realtime' } });
    await explicitWins.send({ type: 'session.update', session: { model: MODEL } });
    expect(explicitWins.out.types()).to.deep.equal(['session.created']);

    const none = createHarness();
    await none.send({ type: 'session.update', event_id: 'evt_x', session: { type: 'realtime' } });
    expect(none.out.types()).to.deep.equal(['error']);
    expect(none.out.events[0]!.error).to.deep.include({
      type: 'invalid_request_error',
      code: 'missing_required_parameter',
      param: 'session.model',
      event_id: 'evt_x',
    });
    expect(none.out.closed).to.deep.equal({ ending: 'invalid_configuration', reason: 'invalid session configuration' });
  });

  const rejected: [string, Record<string, unknown>, string][] = [
    ['include', { include: ['item.input_audio_transcription.logprobs'] }, 'session.include'],
    ['prompt', { prompt: { id: 'pmpt_1' } }, 'session.prompt'],
    ['tracing', { tracing: 'auto' }, 'session.tracing'],
    [
      'turn_detection.idle_timeout_ms',
      { audio: { input: { turn_detection: { type: 'server_vad', idle_timeout_ms: 5000 } } } },
      'session.audio.input.turn_detection.idle_timeout_ms',
    ],
    ['audio/pcma input', { audio: { input: { format: { type: 'audio/pcma' } } } }, 'session.audio.input.format.type'],
    ['audio/pcma output', { audio: { output: { format: { type: 'audio/pcma' } } } }, 'session.audio.output.format.type'],
    ['mixed output modalities', { output_modalities: ['audio', 'text'] }, 'session.output_modalities'],
    ['MCP tools', { tools: [{ type: 'mcp', server_label: 'x', server_url: 'https://x' }] }, 'session.tools[0].type'],
    ['transcription-only sessions', { type: 'transcription' }, 'session.type'],
    ['an unknown model', { model: 'gpt-realtime' }, 'session.model'],
    ['an unsupported PCM rate', { audio: { input: { format: { type: 'audio/pcm', rate: 44100 } } } }, 'session.audio.input.format.rate'],
    ['a truncation object', { truncation: { type: 'retention_ratio', retention_ratio: 0.5 } }, 'session.truncation'],
    ['an unknown field', { voice: 'alloy' }, 'session.voice'],
    ['an empty transcription model', { audio: { input: { transcription: { model: ' ' } } } }, 'session.audio.input.transcription.model'],
  ];
  for (const [name, patch, param] of rejected) {
    it(`rejects ${name} with an error and closes the session`, async () => {
      const h = createHarness();
      await h.send({ type: 'session.update', session: { model: MODEL, ...patch } });
      expect(h.out.types()).to.deep.equal(['error']);
      expect((h.out.events[0]!.error as any).param).to.equal(param);
      expect((h.out.events[0]!.error as any).type).to.equal('invalid_request_error');
      expect(h.out.closed?.ending).to.equal('invalid_configuration');
    });
  }

  it('caps instructions at 32,768 characters (session and response): longer is string_above_max_length, nothing kept (issue 33)', async () => {
    const h = await startTextSession({}, { instructions: '\u{1F600}'.repeat(32_768) });
    expect((h.created!.session as { instructions: string }).instructions).to.have.length(65_536); // characters, not UTF-16 units
    await h.send({ type: 'response.create', response: { instructions: 'x'.repeat(1_500_000) } });
    const refused = h.out.events.at(-1)!;
    expect(refused.type).to.equal('error');
    expect(refused.error).to.deep.include({
      type: 'invalid_request_error',
      code: 'string_above_max_length',
      param: 'response.instructions',
    });
    expect((refused.error as { message: string }).message).to.equal(
      "'response.instructions' must be at most 32768 characters (got 1500000).",
    );
    expect(h.out.closed, 'a refused response override leaves the session open').to.equal(null);
    const fresh = createHarness();
    await fresh.send({ type: 'session.update', session: { model: MODEL, instructions: 'x'.repeat(1_500_000) } });
    expect(fresh.out.types()).to.deep.equal(['error']);
    expect(fresh.out.events[0]!.error).to.deep.include({ code: 'string_above_max_length', param: 'session.instructions' });
    expect(fresh.out.closed?.ending).to.equal('invalid_configuration');
  });

  it('rejects an invalid later update too, closing an active session', async () => {
    const h = await startTextSession();
    await h.send({ type: 'session.update', session: { tracing: { workflow_name: 'x' } } });
    expect(h.out.types()).to.deep.equal(['error']);
    expect(h.out.closed?.ending).to.equal('invalid_configuration');
    await h.send({ type: 'response.create' });
    expect(h.out.types()).to.deep.equal(['error']);
  });

  it('validates a non-default output voice against the voice directory; unknown voices fail the update', async () => {
    const ok = createHarness();
    await ok.send({ type: 'session.update', session: { model: MODEL, audio: { output: { voice: 'voice_abc123' } } } });
    expect(ok.out.types()).to.deep.equal(['session.created']);
    expect(ok.voices.lookups).to.deep.equal(['voice_abc123']);

    const unknown = createHarness();
    await unknown.send({ type: 'session.update', session: { model: MODEL, audio: { output: { voice: 'voice_nope' } } } });
    expect(unknown.out.types()).to.deep.equal(['error']);
    expect(unknown.out.events[0]!.error).to.deep.include({ code: 'voice_not_found', param: 'session.audio.output.voice' });
    expect(unknown.out.closed?.ending).to.equal('invalid_configuration');

    const dflt = createHarness();
    await dflt.send({ type: 'session.update', session: { model: MODEL, audio: { output: { voice: 'default' } } } });
    expect(dflt.voices.lookups).to.deep.equal([]);
  });

  it('accepts create_response, interrupt_response and eagerness without effect, and ignores transcription prompt/keywords/languages/delay', async () => {
    const h = createHarness();
    await h.send({
      type: 'session.update',
      session: {
        model: MODEL,
        audio: {
          input: {
            turn_detection: { type: 'semantic_vad', eagerness: 'high', create_response: false, interrupt_response: false },
            transcription: { model: 'svc-stt-3.1', language: 'en', prompt: 'names', keywords: ['svc'], languages: ['en'], delay: 'low' },
            noise_reduction: { type: 'near_field' },
          },
        },
      },
    });
    expect(h.out.types()).to.deep.equal(['session.created']);
    const input = (h.out.events[0]!.session as any).audio.input;
    expect(input.turn_detection).to.deep.equal({
      type: 'semantic_vad',
      threshold: 0.55,
      prefix_padding_ms: 300,
      silence_duration_ms: 500,
      min_speech_duration: 0.125,
      create_response: false,
      interrupt_response: false,
      min_interruption_duration: 0.8,
      min_interruption_words: 2,
      resume_false_interruption: true,
      interruption_events: false,
      eagerness: 'high',
    });
    expect(input.transcription).to.deep.equal({ model: 'svc-stt-3.1', language: 'en' });
    expect(input.noise_reduction).to.deep.equal({ type: 'near_field' });
  });

  it('clamps integer max_output_tokens to 4096 and keeps inf unbounded', async () => {
    const h = await startTextSession({}, { max_output_tokens: 100000 });
    expect((h.created!.session as any).max_output_tokens).to.equal(4096);
    await h.send({ type: 'session.update', session: { max_output_tokens: 'inf' } });
    expect((h.out.last('session.updated').session as any).max_output_tokens).to.equal('inf');
    await h.send({ type: 'session.update', session: { max_output_tokens: 256 } });
    expect((h.out.last('session.updated').session as any).max_output_tokens).to.equal(256);
  });

  it('accepts every audio format of the spec', async () => {
    const h = await startTextSession();
    const formats = [
      { type: 'audio/pcm', rate: 8000 },
      { type: 'audio/pcm', rate: 16000 },
      { type: 'audio/pcm', rate: 48000 },
      { type: 'audio/pcmu' },
      { type: 'audio/opus', frame_size_ms: 2.5 },
      { type: 'audio/opus', frame_size_ms: 60 },
    ];
    for (const format of formats) {
      await h.send({ type: 'session.update', session: { audio: { input: { format }, output: { format } } } });
      const audio = (h.out.last('session.updated').session as any).audio;
      expect(audio.input.format).to.deep.equal(format);
      expect(audio.output.format).to.deep.equal(format);
    }
    expect(h.out.closed).to.equal(null);
  });

  it('keeps function tools and tool_choice', async () => {
    const tool = {
      type: 'function',
      name: 'get_weather',
      description: 'Weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    };
    const h = await startTextSession({}, { tools: [tool], tool_choice: 'required' });
    const session = h.created!.session as any;
    expect(session.tools).to.deep.equal([tool]);
    expect(session.tool_choice).to.equal('required');
  });

  it('sends nothing before session.created: earlier events are held, then handled in order', async () => {
    const h = createHarness();
    await h.send({
      type: 'conversation.item.create',
      event_id: 'early',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
    });
    await h.send({ type: 'no.such.event', event_id: 'junk' });
    expect(h.out.types()).to.deep.equal([]);
    expect(h.out.closed).to.equal(null);
    await h.send({ type: 'session.update', session: { model: MODEL, output_modalities: ['text'] } });
    expect(h.out.types()).to.deep.equal(['session.created', 'conversation.item.added', 'error']);
    expect(h.out.events[2]!.error).to.deep.include({ event_id: 'junk' });
  });

  it('closes a connection that floods events before its first session.update (1008)', async () => {
    const h = createHarness();
    for (let i = 0; i < MAX_EVENTS_BEFORE_SESSION + 1; i++) await h.send({ type: 'input_audio_buffer.clear' });
    expect(h.out.types()).to.deep.equal([]);
    expect(h.out.closed).to.deep.include({ ending: 'protocol_violation' });
  });

  it('an invalid first session.update sends only its error, then closes', async () => {
    const h = createHarness();
    await h.send({ type: 'input_audio_buffer.clear' });
    await h.send({ type: 'session.update', session: { model: MODEL, tracing: 'auto' } });
    expect(h.out.types()).to.deep.equal(['error']);
    expect(h.out.closed).to.deep.include({ ending: 'invalid_configuration' });
  });
});
