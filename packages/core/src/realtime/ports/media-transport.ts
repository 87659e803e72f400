/**
 * A transport that carries the audio as media instead of as events (WebRTC: Opus RTP tracks).
 * The engine never learns which transport it serves; it learns only this: audio arrives as
 * samples (`RealtimeSessionEngine.appendInputSamples`) rather than in `input_audio_buffer.append`,
 * and spoken replies leave through a ReplyAudioTrack that sends them in real time, rather than as
 * `response.output_audio.delta` events. What the track has sent is what the listener heard, so
 * truncation on barge-in is exact. A session with a track also gets the `output_audio_buffer.*`
 * events (`started`, `stopped`, `cleared`) and accepts the client event `output_audio_buffer.clear`;
 * a session without one (the WebSocket) never sees them.
 */
export interface SessionMedia {
  /** Rate of the samples the transport hands to `appendInputSamples` (48000 for Opus). */
  inputSampleRate: number;
  /** Where spoken replies are played. */
  replyTrack: ReplyAudioTrack;
}

/** The outgoing audio track of a call: one playout per response, played one after another. */
export interface ReplyAudioTrack {
  /** Rate of the samples `write` takes (replies are synthesized at it). */
  readonly sampleRate: number;
  /** Opens the audio of one response; it plays after whatever the track is still playing. */
  open(): ReplyAudioPlayout;
}

/** One response's audio on the track. */
export interface ReplyAudioPlayout {
  /**
   * Queues samples. Resolves once what is queued and unsent is within the transport's lead
   * (backpressure: synthesis runs only as fast as the track sends), or at once when `signal`
   * aborts. After `clear()` writes are dropped.
   */
  write(samples: Int16Array, signal: AbortSignal): Promise<void>;
  /** Milliseconds of this playout written so far (its timeline). */
  writtenMs(): number;
  /** Milliseconds of this playout sent on the wire so far: what the listener has been played. */
  sentMs(): number;
  /** No more audio will be written; resolves when all of it has been sent (or it was cleared). */
  finish(): Promise<void>;
  /** Drops what has not been sent yet (barge-in, cancel, `output_audio_buffer.clear`). */
  clear(): void;
}
