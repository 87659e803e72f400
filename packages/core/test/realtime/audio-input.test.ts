import { expect } from 'chai';
import { muLawEncode } from '../../src/realtime/index.js';
import { InvalidRequestError } from '../../src/shared/errors.js';
import { EnergyVad, FakeRecognizer, FakeStreamingRecognizer, flush, NearestResampler, pcmBase64 } from '../fakes/index.js';
import { startTextSession } from './support/session-harness.js';

describe('realtime input audio buffer', () => {
  it('commits appended PCM as a user audio item: committed, then conversation.item.added; no response', async () => {
    const h = await startTextSession({ audio: { speechRecognizer: new FakeRecognizer('hello') } });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(200) });
    expect(h.out.take()).to.deep.equal([]);
    await h.send({ type: 'input_audio_buffer.commit' });
    const events = h.out.take();
    expect(events.map((e) => e.type)).to.deep.equal(['input_audio_buffer.committed', 'conversation.item.added']);
    const itemId = events[0]!.item_id;
    expect(events[0]).to.deep.include({ previous_item_id: null });
    expect(events[1]!.item).to.deep.equal({
      id: itemId,
      object: 'realtime.item',
      type: 'message',
      status: 'completed',
      role: 'user',
      // The GA schema types transcript as a string (a null fails it): empty until known, then the words.
      content: [{ type: 'input_audio', transcript: '' }],
    });
    expect(h.lm.requests).to.have.length(0);
    await flush();
    await h.send({ type: 'conversation.item.retrieve', item_id: itemId });
    expect((h.out.last('conversation.item.retrieved')!.item as { content: unknown }).content).to.deep.equal([
      { type: 'input_audio', transcript: 'hello' },
    ]);
  });

  it('without a speech recognizer, a committed turn gets an error of type transcription_unavailable and an empty transcript', async () => {
    const h = await startTextSession();
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(200) });
    await h.send({ type: 'input_audio_buffer.commit' });
    await flush();
    const events = h.out.take();
    expect(events.map((e) => e.type)).to.deep.equal(['input_audio_buffer.committed', 'conversation.item.added', 'error']);
    expect(events[2]!.error).to.deep.include({ type: 'transcription_unavailable', code: 'transcription_unavailable' });
    await h.send({ type: 'conversation.item.retrieve', item_id: events[0]!.item_id });
    expect((h.out.last('conversation.item.retrieved')!.item as { content: unknown }).content).to.deep.equal([
      { type: 'input_audio', transcript: '' },
    ]);
  });

  it('rejects a commit of an empty (or under 100 ms) buffer, as the API it follows does', async () => {
    const h = await startTextSession();
    await h.send({ type: 'input_audio_buffer.commit', event_id: 'c0' });
    expect(h.out.take()[0]!.error).to.deep.include({
      type: 'invalid_request_error',
      code: 'input_audio_buffer_commit_empty',
      event_id: 'c0',
    });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(50) });
    await h.send({ type: 'input_audio_buffer.commit' });
    expect((h.out.take()[0]!.error as any).code).to.equal('input_audio_buffer_commit_empty');
  });

  it('clears uncommitted audio (input_audio_buffer.cleared) so a following commit is empty', async () => {
    const h = await startTextSession();
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(500) });
    await h.send({ type: 'input_audio_buffer.clear' });
    expect(h.out.take().map((e) => e.type)).to.deep.equal(['input_audio_buffer.cleared']);
    await h.send({ type: 'input_audio_buffer.commit' });
    expect(h.out.take()[0]!.type).to.equal('error');
  });

  it('refuses an append over 1,048,576 base64 bytes and invalid base64, keeping the session', async () => {
    const h = await startTextSession();
    await h.send({ type: 'input_audio_buffer.append', audio: 'A'.repeat(1_048_580) });
    await h.send({ type: 'input_audio_buffer.append', audio: 'not base64!' });
    await h.send({ type: 'input_audio_buffer.append' });
    const errors = h.out.take().map((e) => (e.error as any).code);
    expect(errors).to.deep.equal(['audio_chunk_too_large', 'invalid_value', 'missing_required_parameter']);
    await h.send({ type: 'input_audio_buffer.append', audio: 'A'.repeat(1_048_576) });
    expect(h.out.take()).to.deep.equal([]);
    expect(h.out.closed).to.equal(null);
  });

  it('transcribes committed audio at the configured rate and emits the transcription event when transcription.model is set', async () => {
    const recognizer = new FakeRecognizer('what time is it');
    const h = await startTextSession(
      { audio: { speechRecognizer: recognizer } },
      {
        audio: {
          input: {
            turn_detection: null,
            format: { type: 'audio/pcm', rate: 16000 },
            transcription: { model: 'svc-stt-3.1', language: 'en' },
          },
        },
      },
    );
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(250, 16000) });
    await h.send({ type: 'input_audio_buffer.commit' });
    const events = h.out.take();
    expect(events.map((e) => e.type)).to.deep.equal([
      'input_audio_buffer.committed',
      'conversation.item.added',
      'conversation.item.input_audio_transcription.completed',
    ]);
    const { event_id: _e, ...completed } = events[2]!;
    expect(completed).to.deep.equal({
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: events[0]!.item_id,
      content_index: 0,
      transcript: 'what time is it',
      usage: { type: 'duration', seconds: 0.25 },
    });
    expect(recognizer.calls).to.deep.equal([{ samples: 4000, sampleRate: 16000, language: 'en' }]);
    await h.send({ type: 'response.create' });
    expect(h.lm.requests[0]!.messages[1]).to.deep.equal({ role: 'user', content: 'what time is it' });
  });

  it('emits no transcription events without transcription.model, but the model still gets the words', async () => {
    const h = await startTextSession({ audio: { speechRecognizer: new FakeRecognizer('hello') } });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(200) });
    await h.send({ type: 'input_audio_buffer.commit' });
    expect(h.out.types()).to.not.include('conversation.item.input_audio_transcription.completed');
    await h.send({ type: 'response.create' });
    expect(h.lm.requests[0]!.messages[1]).to.deep.equal({ role: 'user', content: 'hello' });
  });

  it('decodes audio/pcmu with mu-law at 8 kHz', async () => {
    const recognizer = new FakeRecognizer();
    const h = await startTextSession(
      { audio: { speechRecognizer: recognizer } },
      { audio: { input: { turn_detection: null, format: { type: 'audio/pcmu' } } } },
    );
    const mulaw = muLawEncode(new Int16Array(1600).fill(2000));
    await h.send({ type: 'input_audio_buffer.append', audio: Buffer.from(mulaw).toString('base64') });
    await h.send({ type: 'input_audio_buffer.commit' });
    expect(recognizer.calls).to.deep.equal([{ samples: 1600, sampleRate: 8000, language: null }]);
  });

  it('buffers audio/opus packets (one per append) and commits them', async () => {
    const h = await startTextSession(
      { audio: { speechRecognizer: new FakeRecognizer('hi') } },
      { audio: { input: { turn_detection: null, format: { type: 'audio/opus', frame_size_ms: 20 } } } },
    );
    for (let i = 0; i < 5; i++)
      await h.send({ type: 'input_audio_buffer.append', audio: Buffer.from([0xf8, 0xff, 0xfe, i]).toString('base64') });
    await h.send({ type: 'input_audio_buffer.commit' });
    expect(h.out.take().map((e) => e.type)).to.deep.equal(['input_audio_buffer.committed', 'conversation.item.added']);
  });

  it('refuses a corrupt opus packet at its append with invalid_value (param audio), keeping the session and the rest', async () => {
    // A decoder as the port describes it: an invalid-request error for a packet it cannot decode.
    const opusCodec = {
      createDecoder: () => ({
        decode: (packet: Uint8Array) => {
          if (packet[0] === 0x03) throw new InvalidRequestError(`Opus packet 2 (${packet.length} bytes) could not be decoded.`);
          return new Int16Array(960 * 3);
        },
        release: () => undefined,
      }),
      createEncoder: () => ({ encode: () => [], flush: () => [] }),
      decode: async () => ({ samples: new Int16Array(0), sampleRate: 48000 }),
    };
    const h = await startTextSession(
      { audio: { opusCodec, speechRecognizer: new FakeRecognizer('hello') } },
      { audio: { input: { turn_detection: null, format: { type: 'audio/opus', frame_size_ms: 20 } } } },
    );
    const send = (bytes: number[], eventId: string) =>
      h.send({ type: 'input_audio_buffer.append', event_id: eventId, audio: Buffer.from(bytes).toString('base64') });
    await send([0xf8, 0xff, 0xfe], 'a0');
    await send([0x03, 0x00], 'a1');
    for (let i = 2; i < 6; i++) await send([0xf8, 0xff, 0xfe, i], `a${i}`);
    const [error] = h.out.take();
    expect(error!.error).to.deep.include({
      type: 'invalid_request_error',
      code: 'invalid_value',
      param: 'audio',
      event_id: 'a1',
      message: 'Opus packet 2 (2 bytes) could not be decoded.',
    });
    expect(h.out.closed).to.equal(null);
    await h.send({ type: 'input_audio_buffer.commit' });
    expect(h.out.take().map((e) => e.type)).to.deep.equal(['input_audio_buffer.committed', 'conversation.item.added']);
  });

  it('with server VAD and a streaming recognizer, the turn is fed while the user speaks and only finished at speech_stopped', async () => {
    const vad = new EnergyVad();
    const recognizer = new FakeStreamingRecognizer('tell me the time');
    const h = await startTextSession(
      { audio: { voiceActivityDetector: vad, speechRecognizer: recognizer } },
      {
        audio: {
          input: {
            transcription: { model: 'svc-stt-3.1' },
            turn_detection: { type: 'server_vad', silence_duration_ms: 200, prefix_padding_ms: 100 },
          },
        },
      },
    );
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 0) });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, 24000, 5000) });
    // Speech started: the recognizer already has the padded onset and the speech so far.
    expect(recognizer.streams).to.have.length(1);
    expect(recognizer.streams[0]).to.deep.include({ state: 'open', sampleRate: 24000 });
    expect(recognizer.streams[0]!.samples).to.equal(24 * 500);
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 0) });
    await flush();
    expect(recognizer.streams[0]!.state).to.equal('finished');
    expect(recognizer.calls).to.have.length(0);
    expect(h.out.last('conversation.item.input_audio_transcription.completed')).to.deep.include({ transcript: 'tell me the time' });
  });

  it('with a resampler wired, the input is resampled once and the detector and the recognizer share the 16 kHz samples', async () => {
    const vad = new EnergyVad();
    const recognizer = new FakeStreamingRecognizer('tell me the time');
    const resampler = new NearestResampler();
    const h = await startTextSession(
      { audio: { voiceActivityDetector: vad, speechRecognizer: recognizer, resampler } },
      {
        audio: {
          input: {
            transcription: { model: 'svc-stt-3.1' },
            turn_detection: { type: 'server_vad', silence_duration_ms: 200, prefix_padding_ms: 100 },
          },
        },
      },
    );
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 0) });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, 24000, 5000) });
    // One stream, 24 -> 16 kHz; the detector and the recognizer are opened at 16 kHz.
    expect(resampler.opened.map(({ inputRate, outputRate }) => [inputRate, outputRate])).to.deep.equal([[24000, 16000]]);
    expect(vad.opened.at(-1)!.sampleRate).to.equal(16000);
    expect(recognizer.streams[0]).to.deep.include({ state: 'open', sampleRate: 16000 });
    // The padded onset (100 ms) and the speech so far, at 16 kHz.
    expect(recognizer.streams[0]!.samples).to.equal(16 * 500);
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 0) });
    await flush();
    expect(recognizer.streams[0]!.state).to.equal('finished');
    expect(resampler.opened).to.have.length(1);
    expect(resampler.opened[0]!.samplesIn).to.equal(24 * 1000);
  });

  it('the detector hears the rate the input was captured at when it was resampled (8 kHz G.711), and none when it was not', async () => {
    const opened = async (format: { type: string; rate?: number }, resampler: NearestResampler | undefined) => {
      const vad = new EnergyVad();
      const h = await startTextSession(
        { audio: { voiceActivityDetector: vad, speechRecognizer: new FakeRecognizer('x'), ...(resampler ? { resampler } : {}) } },
        { audio: { input: { format, turn_detection: { type: 'server_vad' } } } },
      );
      await h.send({
        type: 'input_audio_buffer.append',
        audio: format.type === 'audio/pcmu' ? Buffer.from(muLawEncode(new Int16Array(800))).toString('base64') : pcmBase64(100, 16000, 0),
      });
      return vad.opened.at(-1)!;
    };
    expect(await opened({ type: 'audio/pcmu' }, new NearestResampler())).to.include({ sampleRate: 16000, sourceSampleRate: 8000 });
    expect(await opened({ type: 'audio/pcm', rate: 16000 }, new NearestResampler())).to.not.have.property('sourceSampleRate');
    expect(await opened({ type: 'audio/pcmu' }, undefined)).to.not.have.property('sourceSampleRate');
  });

  it('a session that closes cancels the recognition of its turns (speech in progress and turns being transcribed)', async () => {
    const vad = new EnergyVad();
    const recognizer = new FakeStreamingRecognizer('x');
    const h = await startTextSession(
      { audio: { voiceActivityDetector: vad, speechRecognizer: recognizer } },
      { audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 200 } } } },
    );
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, 24000, 5000) });
    expect(recognizer.streams[0]!.state).to.equal('open');
    h.engine.transportClosed();
    expect(recognizer.streams[0]!.state).to.equal('cancelled');
    expect(recognizer.streams[0]!.signal.aborted).to.equal(true);
  });

  it('with server VAD, a commit during detected speech commits the item speech_started announced (no speech_stopped, no response)', async () => {
    const vad = new EnergyVad();
    const recognizer = new FakeStreamingRecognizer('tell me the time');
    const h = await startTextSession(
      { audio: { voiceActivityDetector: vad, speechRecognizer: recognizer } },
      { audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 200, prefix_padding_ms: 100 } } } },
    );
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 0) });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, 24000, 5000) });
    const [started] = h.out.take();
    expect(started).to.deep.include({ type: 'input_audio_buffer.speech_started' });
    await h.send({ type: 'input_audio_buffer.commit' });
    await flush();
    const events = h.out.take();
    expect(events.map((e) => e.type)).to.deep.equal(['input_audio_buffer.committed', 'conversation.item.added']);
    expect(events[0]!.item_id).to.equal(started!.item_id);
    expect((events[1]!.item as { id: string }).id).to.equal(started!.item_id);
    // The turn's streaming recognition was cancelled; the commit is recognized in one go.
    expect(recognizer.streams[0]!.state).to.equal('cancelled');
    expect(h.engine.conversation.has(started!.item_id as string)).to.equal(true);
    // Silence afterwards closes nothing: the speech ended with the commit.
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 0) });
    await flush();
    expect(h.out.take().map((e) => e.type)).to.not.include('input_audio_buffer.speech_stopped');
    expect(h.lm.requests).to.have.length(0);
  });

  it('with server VAD, detected speech becomes a user turn and a response (speech_started/stopped, committed, item, response)', async () => {
    const vad = new EnergyVad();
    const recognizer = new FakeRecognizer('tell me the time');
    const h = await startTextSession(
      { audio: { voiceActivityDetector: vad, speechRecognizer: recognizer } },
      { audio: { input: { turn_detection: { type: 'server_vad', silence_duration_ms: 200, prefix_padding_ms: 100 } } } },
    );
    expect(vad.opened[0]).to.deep.equal({
      sampleRate: 24000,
      threshold: 0.55,
      prefixPaddingMs: 100,
      silenceDurationMs: 200,
      minSpeechDurationMs: 125,
      mode: 'server_vad',
    });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 0) });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(400, 24000, 5000) });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 0) });
    await flush();
    const types = h.out.types();
    expect(types.slice(0, 5)).to.deep.equal([
      'input_audio_buffer.speech_started',
      'input_audio_buffer.speech_stopped',
      'input_audio_buffer.committed',
      'conversation.item.added',
      'response.created',
    ]);
    expect(types[types.length - 1]).to.equal('response.done');
    const started = h.out.events[0]!;
    // Onset at 300 ms, reported 100 ms earlier (prefix padding), and captured from there once.
    expect(started).to.deep.include({ audio_start_ms: 200 });
    expect(h.out.events[1]).to.deep.include({ audio_end_ms: 900, item_id: started.item_id });
    expect(h.out.events[2]!.item_id).to.equal(started.item_id);
    // 100 ms pre-roll + 400 ms speech + 200 ms of trailing silence before the stop
    expect(recognizer.calls[0]!.samples).to.be.closeTo(24000 * 0.7, 1);
    expect(h.lm.requests[0]!.messages[1]).to.deep.equal({ role: 'user', content: 'tell me the time' });
  });

  it('barge-in with min_interruption_duration 0 (the modelled API): speech detected during a response interrupts it at once', async () => {
    const vad = new EnergyVad();
    const h = await startTextSession(
      { audio: { voiceActivityDetector: vad } },
      { audio: { input: { turn_detection: { type: 'server_vad', min_interruption_duration: 0 } } } },
    );
    h.lm.script = [
      { type: 'text', delta: 'a' },
      { type: 'text', delta: 'b' },
    ];
    h.lm.holdAfter = 1;
    await h.send({ type: 'response.create' });
    h.out.take();
    // 200 ms: longer than min_speech_duration (125 ms), so it is speech.
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(200, 24000, 5000) });
    const types = h.out.take().map((e) => e.type);
    expect(types[0]).to.equal('input_audio_buffer.speech_started');
    expect(types).to.include('response.done');
    expect((h.out.last('response.done').response as any).status).to.equal('cancelled');
  });
});
