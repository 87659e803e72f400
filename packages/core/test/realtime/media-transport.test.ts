import { expect } from 'chai';
import {
  EnergyVad,
  FakeReplySpeaker,
  FakeReplyTrack,
  FakeStreamingRecognizer,
  flush,
  pcmBase64,
  ScriptedLanguageModel,
} from '../fakes/index.js';
import { createHarness, type Harness } from './support/session-harness.js';

/**
 * The engine's seam for transports that carry audio as media (a WebRTC call): samples in, replies
 * played on a track that sends in real time (FakeReplyTrack on the fake clock), the
 * output_audio_buffer events, and truncation at exactly what the track sent.
 */
describe('realtime sessions over a media transport (the engine seam of WebRTC calls)', () => {
  // 4000 samples per character at 48 kHz: "Hello there." is 1 s of audio, the reply 2 s.
  const REPLY = 'Hello there. How are you?';

  async function mediaSession(
    session: Record<string, unknown> = {},
    withVad = false,
    interruption: Record<string, unknown> = { min_interruption_duration: 0 },
  ) {
    const track = new FakeReplyTrack(undefined as never, 200);
    const vad = new EnergyVad();
    const recognizer = new FakeStreamingRecognizer('hello');
    const speaker = new FakeReplySpeaker(4000);
    const h = createHarness({
      lm: new ScriptedLanguageModel([{ type: 'text', delta: REPLY }]),
      audio: { replySpeaker: speaker, ...(withVad ? { voiceActivityDetector: vad, speechRecognizer: recognizer } : {}) },
      options: { media: { inputSampleRate: 48000, replyTrack: track } },
    });
    // The track runs on the session's clock.
    (track as unknown as { clock: unknown }).clock = h.clock;
    await h.send({
      type: 'session.update',
      session: {
        model: 'svc-realtime',
        output_modalities: ['audio'],
        audio: {
          input: {
            turn_detection: withVad ? { type: 'server_vad', silence_duration_ms: 200, ...interruption } : null,
            transcription: { model: 'svc-stt-3.1' },
          },
        },
        ...session,
      },
    });
    h.out.reset();
    return { h, track, speaker, recognizer };
  }

  async function advance(h: Harness, ms: number, step = 50) {
    for (let t = 0; t < ms; t += step) {
      h.clock.advance(step);
      await flush();
    }
  }

  const loud = (ms: number) => new Int16Array((48000 * ms) / 1000).fill(5000);
  const quiet = (ms: number) => new Int16Array((48000 * ms) / 1000);

  it('plays a spoken reply on the track (no delta events), started at its first audio, stopped after response.done once sent', async () => {
    const { h, track, speaker } = await mediaSession();
    await h.send({ type: 'response.create' });
    const first = h.out.types();
    expect(first.indexOf('output_audio_buffer.started')).to.be.greaterThan(first.indexOf('response.content_part.added'));
    // Synthesized at the track's rate, whatever audio.output.format says.
    expect(speaker.requests[0]!.sampleRate).to.equal(48000);
    // Generation runs at most the track's lead (200 ms) ahead of what it sent.
    await advance(h, 1700);
    expect(h.out.types()).not.to.include('response.done');
    await advance(h, 200);
    expect(h.out.types()).to.include('response.done');
    expect(h.out.types()).not.to.include('output_audio_buffer.stopped');
    await advance(h, 250);
    const types = h.out.types();
    expect(types.indexOf('output_audio_buffer.stopped')).to.be.greaterThan(types.indexOf('response.done'));
    expect(types).not.to.include('response.output_audio.delta');
    expect(h.out.last('response.done').response).to.deep.include({ status: 'completed' });
    const responseId = (h.out.last('response.done').response as { id: string }).id;
    for (const t of ['output_audio_buffer.started', 'output_audio_buffer.stopped']) expect(h.out.last(t).response_id).to.equal(responseId);
    expect(track.playouts).to.have.length(1);
    expect(track.playouts[0]!.writtenMs).to.equal(2000);
    const item = h.out.last('response.output_item.done').item as { content: Array<{ transcript: string }> };
    expect(item.content[0]!.transcript).to.equal(REPLY);
  });

  it('a cancel clears the buffer before response.done and keeps the words the track sent', async () => {
    const { h } = await mediaSession();
    await h.send({ type: 'response.create' });
    await advance(h, 500);
    await h.send({ type: 'response.cancel' });
    const types = h.out.types();
    expect(types.indexOf('output_audio_buffer.cleared')).to.be.within(0, types.indexOf('response.done'));
    expect(h.out.last('response.done').response).to.deep.include({ status: 'cancelled' });
    // 500 ms sent: "Hello" ends at 5/12 of the first second (417 ms), "there." at 1 s.
    const item = h.out.last('response.output_item.done').item as { id: string; content: Array<{ transcript: string }> };
    expect(item.content[0]!.transcript).to.equal('Hello');
    await advance(h, 2000);
    expect(h.out.types()).not.to.include('output_audio_buffer.stopped');
    // The item keeps 500 ms of audio: a truncate past it is refused.
    await h.send({ type: 'conversation.item.truncate', item_id: item.id, content_index: 0, audio_end_ms: 600 });
    expect(h.out.last('error').error).to.deep.include({ param: 'audio_end_ms' });
  });

  it('min_interruption_duration 0: speech over the last audio still playing after response.done cuts it there: cleared, and the item truncated to what was sent', async () => {
    const { h } = await mediaSession({}, true);
    await h.send({ type: 'response.create' });
    await advance(h, 1900);
    expect(h.out.types()).to.include('response.done');
    expect(h.out.types()).not.to.include('output_audio_buffer.stopped');
    h.out.take();
    await h.engine.appendInputSamples(loud(300));
    await flush();
    const events = h.out.take();
    const types = events.map((e) => e.type);
    expect(types.slice(0, 3)).to.deep.equal([
      'input_audio_buffer.speech_started',
      'output_audio_buffer.cleared',
      'conversation.item.truncated',
    ]);
    const truncated = events[2]!;
    // Sent by then: 1900 ms of the 2000 ms reply.
    expect(truncated.audio_end_ms).to.be.within(1850, 1950);
    await h.send({ type: 'conversation.item.retrieve', item_id: truncated.item_id });
    const kept = h.out.last('conversation.item.retrieved').item as { content: Array<{ transcript: string }> };
    expect(kept.content[0]!.transcript).to.equal('Hello there. How are');
    await advance(h, 500);
    expect(h.out.types()).not.to.include('output_audio_buffer.stopped');
  });

  it('a backchannel over a reply pauses the track at speech_started (nothing sent while paused) and resumes it: no cleared, the reply whole', async () => {
    const { h, track } = await mediaSession({}, true, {});
    await h.send({ type: 'response.create' });
    await advance(h, 600);
    h.out.take();
    // 300 ms of speech, then silence: a backchannel.
    await h.engine.appendInputSamples(loud(300));
    await flush();
    expect(h.out.take().map((e) => e.type)).to.deep.equal(['input_audio_buffer.speech_started']);
    const playout = track.playouts[0]!;
    // The track was told to stop sending at speech_started.
    expect(playout.pausedAt).to.equal(h.clock.now());
    for (let i = 0; i < 6; i++) {
      await h.engine.appendInputSamples(quiet(50));
      await advance(h, 50);
    }
    const types = h.out.types();
    expect(types).to.include('input_audio_buffer.speech_stopped');
    expect(types).not.to.include('output_audio_buffer.cleared');
    expect(types).not.to.include('input_audio_buffer.committed');
    expect(playout.pausedAt).to.equal(null);
    await advance(h, 2500);
    expect(h.out.last('response.done').response).to.deep.include({ status: 'completed' });
    expect(playout.writtenMs).to.equal(2000);
    expect(h.out.types()).to.include('output_audio_buffer.stopped');
  });

  it('speech that lasts min_interruption_duration over a reply clears the track then and truncates the item to what it sent', async () => {
    const { h } = await mediaSession({}, true, { min_interruption_duration: 0.5 });
    await h.send({ type: 'response.create' });
    await advance(h, 600);
    h.out.take();
    for (let i = 0; i < 8; i++) {
      await h.engine.appendInputSamples(loud(50));
      await advance(h, 50);
    }
    // 400 ms of speech: paused, not yet cancelled.
    expect(h.out.types()).not.to.include('response.done');
    for (let i = 0; i < 4; i++) {
      await h.engine.appendInputSamples(loud(50));
      await advance(h, 50);
    }
    const types = h.out.types();
    expect(types.indexOf('output_audio_buffer.cleared')).to.be.greaterThan(types.indexOf('input_audio_buffer.speech_started'));
    expect(h.out.last('response.done').response).to.deep.include({ status: 'cancelled' });
    const item = h.out.last('response.output_item.done').item as { content: Array<{ transcript: string }> };
    // Paused at about 725 ms sent (speech_started comes min_speech_duration after the onset): "Hello" (to 417 ms) was heard, "there." (to 1 s) was not.
    expect(item.content[0]!.transcript).to.equal('Hello');
  });

  it('takes its input as samples: turns are detected and transcribed; base64 appends and audio before the session are refused or dropped', async () => {
    const track = new FakeReplyTrack(undefined as never);
    const recognizer = new FakeStreamingRecognizer('hello there');
    const h = createHarness({
      lm: new ScriptedLanguageModel([{ type: 'text', delta: 'Hi.' }]),
      audio: { voiceActivityDetector: new EnergyVad(), speechRecognizer: recognizer },
      options: { media: { inputSampleRate: 48000, replyTrack: track } },
    });
    // Before the session exists, audio is not kept.
    await h.engine.appendInputSamples(loud(500));
    await h.send({
      type: 'session.update',
      session: {
        model: 'svc-realtime',
        output_modalities: ['text'],
        audio: {
          input: {
            format: { type: 'audio/pcmu' },
            turn_detection: { type: 'server_vad', silence_duration_ms: 200 },
            transcription: { model: 'svc-stt-3.1' },
          },
        },
      },
    });
    expect(h.out.types()).to.deep.equal(['session.created']);
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(100) });
    expect(h.out.last('error').error).to.deep.include({ code: 'invalid_value' });
    h.out.reset();
    // The track's samples are 48 kHz PCM whatever audio.input.format says.
    await h.engine.appendInputSamples(quiet(200));
    await h.engine.appendInputSamples(loud(400));
    await h.engine.appendInputSamples(quiet(400));
    await flush();
    const types = h.out.types();
    expect(types).to.include.members([
      'input_audio_buffer.speech_started',
      'input_audio_buffer.speech_stopped',
      'conversation.item.input_audio_transcription.completed',
    ]);
    expect(h.out.last('conversation.item.input_audio_transcription.completed').transcript).to.equal('hello there');
    expect(recognizer.streams[0]!.sampleRate).to.equal(48000);
    // The turn's audio is the 400 ms spoken (plus padding), at 48 kHz.
    expect(h.out.last('input_audio_buffer.speech_stopped').audio_end_ms).to.be.within(600, 800);
  });

  it('output_audio_buffer.clear cuts off a reply on a media session, and is an unknown event type elsewhere', async () => {
    const { h } = await mediaSession();
    await h.send({ type: 'response.create' });
    await advance(h, 300);
    await h.send({ type: 'output_audio_buffer.clear', event_id: 'clr' });
    expect(h.out.types()).to.include('output_audio_buffer.cleared');
    expect(h.out.last('response.done').response).to.deep.include({ status: 'cancelled' });
    expect(h.out.types()).not.to.include('error');

    const ws = createHarness();
    await ws.send({ type: 'session.update', session: { model: 'svc-realtime' } });
    await ws.send({ type: 'output_audio_buffer.clear', event_id: 'clr' });
    expect(ws.out.last('error').error).to.deep.include({
      type: 'invalid_request_error',
      code: 'invalid_value',
      param: 'type',
      event_id: 'clr',
    });
    expect(ws.out.closed).to.equal(null);
  });
});
