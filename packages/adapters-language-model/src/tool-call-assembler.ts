import { randomUUID } from 'node:crypto';
import type { LanguageModelEvent } from '@svc/core';

/** One `choices[0].delta.tool_calls[]` entry of a chat-completion chunk. */
export interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface PendingCall {
  id: string | null;
  name: string;
  started: boolean;
  /** Argument text received before the call could be announced. */
  buffered: string;
}

/**
 * Turns tool-call fragments spread over many chunks into `tool_call` + `tool_call_arguments`
 * events. A call is announced once its name is complete, i.e. when its first argument text
 * arrives, when another call starts, or when the stream ends; servers that split the name or
 * send arguments ahead of the id are handled the same way.
 */
export class ToolCallAssembler {
  private readonly calls = new Map<number, PendingCall>();
  private lastIndex: number | null = null;

  push(deltas: ToolCallDelta[]): LanguageModelEvent[] {
    const events: LanguageModelEvent[] = [];
    deltas.forEach((delta, position) => {
      const index = typeof delta.index === 'number' ? delta.index : position;
      if (this.lastIndex !== null && index !== this.lastIndex) events.push(...this.start(this.lastIndex));
      this.lastIndex = index;
      let call = this.calls.get(index);
      if (!call) {
        call = { id: null, name: '', started: false, buffered: '' };
        this.calls.set(index, call);
      }
      if (delta.id && !call.id) call.id = delta.id;
      const name = delta.function?.name;
      if (name && !call.started) call.name += name;
      const args = delta.function?.arguments;
      if (args) {
        if (call.started) events.push({ type: 'tool_call_arguments', index, delta: args });
        else {
          call.buffered += args;
          events.push(...this.start(index));
        }
      }
    });
    return events;
  }

  /** Announces calls that never received argument text (e.g. functions without parameters). */
  finish(): LanguageModelEvent[] {
    const events: LanguageModelEvent[] = [];
    for (const index of this.calls.keys()) events.push(...this.start(index));
    return events;
  }

  private start(index: number): LanguageModelEvent[] {
    const call = this.calls.get(index);
    if (!call || call.started || !call.name) return [];
    call.started = true;
    const events: LanguageModelEvent[] = [
      { type: 'tool_call', index, callId: call.id ?? `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`, name: call.name },
    ];
    if (call.buffered) events.push({ type: 'tool_call_arguments', index, delta: call.buffered });
    call.buffered = '';
    return events;
  }
}
