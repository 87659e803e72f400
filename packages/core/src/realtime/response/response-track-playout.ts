import type { ReplyAudioPlayout, ReplyAudioTrack } from '../ports/media-transport.js';
import type { ServerEventBody } from '../protocol/server-events.js';

type PlayoutState = 'idle' | 'playing' | 'draining' | 'stopped' | 'cleared';

/**
 * One response's audio on the session's reply track (media transports only) and the events the
 * modelled API sends about that buffer: `output_audio_buffer.started` when its first audio is
 * queued, `output_audio_buffer.stopped` once the track has sent all of it (after `response.done`,
 * since generation runs ahead of playback by the track's lead), `output_audio_buffer.cleared` when
 * it is cut off with audio still unsent (cancel, barge-in, the client's `output_audio_buffer.clear`).
 */
export class ResponseTrackPlayout {
  private playout: ReplyAudioPlayout | null = null;
  private state: PlayoutState = 'idle';

  constructor(
    private readonly track: ReplyAudioTrack,
    private readonly responseId: string,
    private readonly emit: (event: ServerEventBody) => void,
  ) {}

  get sampleRate(): number {
    return this.track.sampleRate;
  }

  /** The response's playout, opened (and announced) by its first use. */
  get(): ReplyAudioPlayout {
    if (!this.playout) {
      this.playout = this.track.open();
      if (this.state === 'idle') {
        this.state = 'playing';
        this.emit({ type: 'output_audio_buffer.started', response_id: this.responseId });
      } else {
        this.playout.clear();
      }
    }
    return this.playout;
  }

  /** Audio was queued and the track has not finished sending it. */
  get audible(): boolean {
    return this.state === 'playing' || this.state === 'draining';
  }

  /** The response completed: the rest plays out, then `output_audio_buffer.stopped`. */
  async finish(): Promise<void> {
    if (this.state !== 'playing' || !this.playout) return;
    this.state = 'draining';
    await this.playout.finish();
    if (this.state !== 'draining') return;
    this.state = 'stopped';
    this.emit({ type: 'output_audio_buffer.stopped', response_id: this.responseId });
  }

  /** Drops what is unsent; true (and `output_audio_buffer.cleared`) when something was still audible. */
  clear(): boolean {
    const wasAudible = this.audible;
    if (this.state !== 'stopped') this.state = 'cleared';
    this.playout?.clear();
    if (wasAudible) this.emit({ type: 'output_audio_buffer.cleared', response_id: this.responseId });
    return wasAudible;
  }
}
