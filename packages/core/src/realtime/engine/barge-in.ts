import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type { TurnDetection } from '../session/session-config.js';
import { InterruptionJudge, type InterruptionVerdict, type SpeechSoFar } from './interruption-judge.js';
import type { PausedReply } from './response-coordinator.js';

/** What barge-in acts on: the response still sounding. */
export interface BargeInResponses {
  /** Today's barge-in: the response in flight (or a media track's last audio) is cut off. */
  interrupt(): Promise<void>;
  /** Pauses the response still sounding; null when none is. */
  pause(announce: boolean): PausedReply | null;
}

/** A paused reply waiting for the speech over it to prove an interruption or not. */
interface Judging {
  reply: PausedReply;
  judge: InterruptionJudge;
  itemId: string;
  pausedAt: number;
}

/**
 * The user speaks over a reply. With `min_interruption_duration` 0 the reply is cut off at
 * `speech_started` (the modelled API's barge-in). Otherwise it is paused there, and the speech is
 * judged as it goes on (InterruptionJudge): proven, the reply is cancelled and truncated to what
 * was heard; ended short (a backchannel, a cough), the reply resumes from where it paused and the
 * speech is not a turn.
 */
export class BargeIn {
  private judging: Judging | null = null;

  constructor(
    private readonly responses: BargeInResponses,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Whether a paused reply waits on the speech in progress. */
  get pending(): boolean {
    return this.judging !== null;
  }

  /** `speech_started`: cut off at once (zero settings), or pause and judge. */
  async speechStarted(td: TurnDetection, language: string | null, itemId: string): Promise<void> {
    this.abandon();
    const judge = new InterruptionJudge(td, language);
    if (judge.immediate) {
      await this.responses.interrupt();
      return;
    }
    const reply = this.responses.pause(td.interruption_events);
    // Nothing was sounding: an ordinary turn, nothing to judge.
    if (!reply) return;
    this.judging = { reply, judge, itemId, pausedAt: this.clock.now() };
    this.logger.debug({ itemId, responseId: reply.responseId }, 'barge-in: reply paused while the speech is judged');
  }

  /** More of the speech: cancels the reply once the speech proves an interruption. */
  async heard(speech: SpeechSoFar): Promise<void> {
    const judging = this.judging;
    if (!judging) return;
    const verdict = judging.judge.during(speech);
    if (verdict.decided) await this.settle(judging, verdict, speech);
  }

  /**
   * `speech_stopped`: the verdict on the paused reply (none when nothing is paused); `settle()`
   * acts on it, so a false interruption's `speech_stopped` can go out before the reply resumes.
   */
  speechEnded(speech: SpeechSoFar): { interrupt: boolean; settle(): Promise<void> } | null {
    const judging = this.judging;
    if (!judging) return null;
    this.judging = null;
    const verdict = judging.judge.atEnd(speech);
    return { interrupt: verdict.interrupt, settle: () => this.settle(judging, verdict, speech) };
  }

  /** The speech was dropped (clear, commit, the detector reconfigured): the reply goes on. */
  abandon(): void {
    const judging = this.judging;
    if (!judging) return;
    this.judging = null;
    judging.reply.resume();
  }

  private async settle(judging: Judging, verdict: Extract<InterruptionVerdict, { decided: true }>, speech: SpeechSoFar): Promise<void> {
    this.judging = null;
    const details = {
      itemId: judging.itemId,
      responseId: judging.reply.responseId,
      rule: verdict.rule,
      voicedMs: Math.round(speech.voicedMs),
      pausedMs: Math.round(this.clock.now() - judging.pausedAt),
      words: verdict.words,
      partial: speech.partial,
    };
    if (verdict.interrupt) {
      this.logger.info(details, 'barge-in: interruption, reply cancelled');
      await judging.reply.cancel();
    } else {
      this.logger.info(details, 'barge-in: no interruption, reply resumed');
      judging.reply.resume();
    }
  }
}
