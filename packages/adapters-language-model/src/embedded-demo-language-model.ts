import type { LanguageModel, LanguageModelEvent, LanguageModelRequest } from '@svc/core';
import { setTimeout as sleep } from 'node:timers/promises';
import { decideReply } from './demo-replies.js';
import { demoToolArguments } from './demo-tool-arguments.js';

export interface EmbeddedDemoLanguageModelOptions {
  /** Context window it claims, so summarization can be exercised (default 4096 tokens). */
  contextWindowTokens?: number;
  /** Pause between streamed tokens (default 0: only yields to the event loop). */
  tokenDelayMs?: number;
  /** The clock for "what time is it" (default: the system clock). */
  now?: () => Date;
}

/**
 * An offline stand-in for a language model, honest about what it is: it restates what the user
 * said, answers a few intents (greeting, time, date, help), and calls a session tool when the
 * user names it, with arguments built from the tool's schema. Replies stream token by token and
 * honour max_output_tokens and cancellation, so every protocol path works without model weights.
 * Temperature is accepted and ignored (it is deterministic).
 */
export class EmbeddedDemoLanguageModel implements LanguageModel {
  readonly id = 'embedded-demo';
  readonly contextWindowTokens: number;
  /** It would only echo a summary prompt back. */
  readonly canSummarize = false;
  private calls = 0;

  constructor(private readonly options: EmbeddedDemoLanguageModelOptions = {}) {
    this.contextWindowTokens = options.contextWindowTokens ?? 4096;
  }

  async *stream(request: LanguageModelRequest): AsyncIterable<LanguageModelEvent> {
    const now = this.options.now?.() ?? new Date();
    const decision = decideReply(request.messages, request.tools, request.toolChoice, now);
    if (decision.kind === 'tool') {
      const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
      const args = JSON.stringify(demoToolArguments(decision.tool.parameters, lastUser?.content ?? ''));
      yield { type: 'tool_call', index: 0, callId: `call_demo_${++this.calls}`, name: decision.tool.name };
      for (let i = 0; i < args.length; i += 8) {
        if (!(await this.pause(request.signal))) return;
        yield { type: 'tool_call_arguments', index: 0, delta: args.slice(i, i + 8) };
      }
      return;
    }
    const tokens = decision.text.match(/\S+\s*/g) ?? [];
    const limit = request.maxOutputTokens ?? Infinity;
    for (let i = 0; i < tokens.length && i < limit; i++) {
      if (!(await this.pause(request.signal))) return;
      yield { type: 'text', delta: tokens[i]! };
    }
  }

  /** Yields to the event loop (so a cancel can arrive) and reports whether to go on. */
  private async pause(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    const delay = this.options.tokenDelayMs ?? 0;
    try {
      if (delay > 0) await sleep(delay, undefined, { signal });
      else await new Promise<void>((resolve) => setImmediate(resolve));
    } catch {
      return false;
    }
    return !signal.aborted;
  }
}
