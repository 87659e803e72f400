import { expect } from 'chai';
import { applySessionUpdate, VIDEO_SIZES } from '@svc/core';

// The realtime panel's units that hold a rule rather than DOM wiring, compiled for the browser
// (packages/playground-web/dist/js) and loaded in Node: what session the panel asks for, when its
// meters count as speech, what the status says when a connection ends, and what a barge-in does.
type SessionConfig = typeof import('@svc/playground-web/js/realtime-session-config.js');
type Levels = typeof import('@svc/playground-web/js/realtime-levels.js');
type CloseStatus = typeof import('@svc/playground-web/js/realtime-close-status.js');
type BargeIn = typeof import('@svc/playground-web/js/realtime-barge-in.js');
type PanelStateModule = typeof import('@svc/playground-web/js/realtime-panel-state.js');
type TurnLatencyModule = typeof import('@svc/playground-web/js/realtime-turn-latency.js');

const load = <T>(name: string) => import(`@svc/playground-web/js/${name}`) as Promise<T>;

describe('playground realtime panel units in Node', () => {
  let config: SessionConfig;
  let levels: Levels;
  let closeStatus: CloseStatus;
  let barge: BargeIn;
  let panelState: PanelStateModule;

  before(async () => {
    [config, levels, closeStatus, barge, panelState] = await Promise.all([
      load<SessionConfig>('realtime-session-config.js'),
      load<Levels>('realtime-levels.js'),
      load<CloseStatus>('realtime-close-status.js'),
      load<BargeIn>('realtime-barge-in.js'),
      load<PanelStateModule>('realtime-panel-state.js'),
    ]);
  });

  describe('the session the panel asks for', () => {
    it('is one the engine accepts, with the choices made, PCM at 24 kHz both ways and interruption events on', () => {
      for (const mode of ['audio', 'text']) {
        const session = config.realtimeSession({ instructions: 'Be brief.', mode, voice: 'af_heart' });
        const { config: applied, voiceToValidate } = applySessionUpdate(session, null, config.REALTIME_MODEL);
        expect(applied.model).to.equal('svc-realtime');
        expect(applied.instructions).to.equal('Be brief.');
        expect(applied.output_modalities).to.deep.equal([mode]);
        expect(voiceToValidate).to.equal('af_heart');
        expect(applied.audio.input.format).to.deep.equal({ type: 'audio/pcm', rate: 24000 });
        expect(applied.audio.output.format).to.deep.equal({ type: 'audio/pcm', rate: 24000 });
        expect(applied.audio.input.turn_detection).to.include({ type: 'server_vad', silence_duration_ms: 500, interruption_events: true });
        expect(applied.audio.input.transcription?.model).to.equal('svc-stt-3.1');
        expect(applied.avatar).to.equal(null);
      }
    });

    it('the turn detection chosen: server_vad by default, semantic_vad, or semantic_vad with eagerness high', () => {
      const applied = (turn?: string) =>
        applySessionUpdate(
          config.realtimeSession({ instructions: 'Hi', mode: 'audio', voice: 'default', ...(turn ? { turn } : {}) }),
          null,
          null,
        ).config.audio.input.turn_detection;
      expect(applied()).to.include({ type: 'server_vad', silence_duration_ms: 500, interruption_events: true });
      expect(applied('server_vad')).to.include({ type: 'server_vad', silence_duration_ms: 500 });
      expect(applied('semantic_vad')).to.include({ type: 'semantic_vad', interruption_events: true });
      expect(applied('semantic_vad')?.eagerness ?? 'auto').to.equal('auto');
      expect(applied('semantic_vad_high')).to.include({ type: 'semantic_vad', eagerness: 'high', interruption_events: true });
    });

    it('with a face: the same session plus the avatar (size and inline photo), accepted for every size the server has', () => {
      const session = config.realtimeSession({ instructions: 'Hi', mode: 'audio', voice: 'default' });
      const before = JSON.stringify(session);
      for (const size of VIDEO_SIZES) {
        const photo = 'data:image/jpeg;base64,/9j/4AAQ';
        const withFace = config.sessionWithFace(session, size, photo);
        expect({ ...withFace, avatar: undefined }).to.deep.equal({ ...session, avatar: undefined });
        expect(withFace.avatar).to.deep.equal({ size, ref_image: photo });
        expect(applySessionUpdate(withFace, null, null).config.avatar).to.deep.equal({ size, ref_image: photo });
      }
      expect(JSON.stringify(session), 'the plain session is left as it was').to.equal(before);
      expect(config.avatarConfig('640x480'), 'the code sample shows the size, never the photo').to.deep.equal({ size: '640x480' });
    });
  });

  it('meters: speech above 0.02 RMS, reply sound above 0.01, the level bar full at a quarter of full scale', () => {
    expect([0, 0.02, 0.021, 0.5].map(levels.carriesVoice)).to.deep.equal([false, false, true, true]);
    expect([0, 0.01, 0.011, 0.5].map(levels.carriesReplySound)).to.deep.equal([false, false, true, true]);
    expect([0, 0.1, 0.25, 0.9].map(levels.levelBarWidth)).to.deep.equal(['0%', '40%', '100%', '100%']);
  });

  it('the end of speech in captured chunks: the end of the last 10 ms window the microphone meter counts as voice', () => {
    const rate = 24000;
    const tone = (amplitude: number, samples: number) =>
      Int16Array.from({ length: samples }, (_, i) => Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * 200 * i) / rate)));
    const chunk = (voiced: Int16Array) => {
      const c = new Int16Array((rate * 40) / 1000);
      c.set(voiced);
      return c;
    };
    // 25 ms of voice: its third window is half voice, still above the meter's level
    expect(levels.lastVoiceInChunk(chunk(tone(0.1, 600)), rate)).to.equal(30);
    expect(levels.lastVoiceInChunk(chunk(tone(0.1, 960)), rate)).to.equal(40);
    expect(levels.lastVoiceInChunk(chunk(tone(0.02, 960)), rate), 'under -34 dBFS').to.equal(null);
    expect(levels.lastVoiceInChunk(new Int16Array(0), rate)).to.equal(null);
  });

  it('a turn ends where the microphone last carried voice on both transports, else where the server said (a quiet microphone)', async () => {
    const { TurnLatency } = await load<TurnLatencyModule>('realtime-turn-latency.js');
    type Parts = ConstructorParameters<typeof TurnLatency>;
    const latency = new TurnLatency({} as Parts[0], { value: 'audio' } as Parts[1]);
    latency.sent(24000, 24000); // 1 s of microphone audio left the page
    const sentAt = performance.now();
    latency.lastVoiceAt = sentAt / 2;
    expect(latency.speechStopped(1000, false), 'WebSocket: the metered voice, not the append').to.equal(sentAt / 2);
    latency.lastVoiceAt = performance.now();
    expect(latency.speechStopped(0, true), 'WebRTC: the metered voice').to.equal(latency.lastVoiceAt);
    // no voice metered since: the append that carried audio_end_ms (WebSocket), now (WebRTC)
    latency.sent(24000, 24000);
    const secondSentAt = performance.now();
    expect(latency.speechStopped(1500, false)).to.be.within(secondSentAt - 1, performance.now());
    const before = performance.now();
    expect(latency.speechStopped(0, true)).to.be.at.least(before);
  });

  describe('the status when a connection ends', () => {
    it('a call: the last error stays, said once to have ended the call; without one, the reason', () => {
      expect(closeStatus.callEndedStatus('Error: boom', 'the server ended the call')).to.deep.equal({
        text: 'Error: boom (the call ended)',
        kind: 'error',
      });
      expect(closeStatus.callEndedStatus('Error: boom (the call ended)', 'connection failed').text).to.equal(
        'Error: boom (the call ended)',
      );
      expect(closeStatus.callEndedStatus(null, 'connection failed')).to.deep.equal({ text: 'Disconnected (connection failed).', kind: '' });
      expect(closeStatus.endedTheCall(closeStatus.endedTheCall('No face'))).to.equal('No face (the call ended)');
    });

    it('a socket: the close code and reason, an error unless the close was normal', () => {
      expect(closeStatus.socketClosedStatus(1000, '')).to.deep.equal({ text: 'Disconnected (1000).', kind: '' });
      expect(closeStatus.socketClosedStatus(4001, 'invalid_api_key')).to.deep.equal({
        text: 'Disconnected (4001 invalid_api_key).',
        kind: 'error',
      });
    });
  });

  describe('barge-in: the user talks over the agent', () => {
    /** A reply player that says whether it plays and how much was heard; records stop(). */
    class FakePlayer {
      stopped = false;
      constructor(
        readonly playing: boolean,
        private readonly heardMs: number,
      ) {}
      playedMs(): number {
        return this.heardMs;
      }
      stop(): void {
        this.stopped = true;
      }
    }

    function panelWithReply(reply: { playing: boolean; done: boolean } | null) {
      const state = panelState.emptyPanelState();
      const player = new FakePlayer(reply?.playing ?? false, 1234);
      if (reply) state.reply = { itemId: 'item_1', responseId: 'resp_1', player: player as never, done: reply.done };
      const bubble = { classList: new Set<string>() };
      const transcript = { replies: new Map([['resp_1', bubble]]), truncated: new Map<string, unknown>() };
      const sent: Array<Record<string, unknown>> = [];
      const status = { dataset: { agentSpeaking: 'true' } as Record<string, string> };
      const parts = { state, status, transcript, send: (event: Record<string, unknown>) => sent.push(event) };
      barge.bargeIn(parts as unknown as Parameters<BargeIn['bargeIn']>[0]);
      return { state, player, bubble, transcript, sent, status };
    }

    it('a reply fully received but still playing: stopped, marked cancelled, the item truncated to what was heard', () => {
      const { state, player, bubble, transcript, sent, status } = panelWithReply({ playing: true, done: true });
      expect(player.stopped).to.equal(true);
      expect(state.reply).to.equal(null);
      expect(status.dataset.agentSpeaking).to.equal('false');
      expect([...bubble.classList]).to.deep.equal(['cancelled']);
      expect(transcript.truncated.get('item_1')).to.equal(bubble);
      expect(sent).to.deep.equal([{ type: 'conversation.item.truncate', item_id: 'item_1', content_index: 0, audio_end_ms: 1234 }]);
    });

    it('a reply still arriving: stopped and marked cancelled, no truncate (the server cancels it itself)', () => {
      const { player, bubble, sent } = panelWithReply({ playing: true, done: false });
      expect(player.stopped).to.equal(true);
      expect([...bubble.classList]).to.deep.equal(['cancelled']);
      expect(sent).to.deep.equal([]);
    });

    it('a reply already over, or none: nothing cancelled, nothing sent', () => {
      for (const reply of [{ playing: false, done: true }, null]) {
        const { state, bubble, sent, status } = panelWithReply(reply);
        expect(state.reply).to.equal(null);
        expect(status.dataset.agentSpeaking).to.equal('false');
        expect([...bubble.classList]).to.deep.equal([]);
        expect(sent).to.deep.equal([]);
      }
    });

    it('hanging up stops the reply and forgets it', () => {
      const state = panelState.emptyPanelState();
      const player = new FakePlayer(true, 0);
      state.reply = { itemId: 'item_1', responseId: 'resp_1', player: player as never, done: false };
      expect(panelState.isConnected(state)).to.equal(false);
      barge.stopReply(state);
      expect(player.stopped).to.equal(true);
      expect(state.reply).to.equal(null);
    });
  });
});
