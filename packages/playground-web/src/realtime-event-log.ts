import { element } from './dom.js';

/** Lines kept in the log: the oldest go first. */
const LOG_LIMIT = 300;

/** An event of the realtime protocol, either direction. */
export type RealtimeEvent = { type: string; [field: string]: any };

/** The realtime panel's event log: one line per event sent (↑) or received (↓), audio payloads shortened. */
export class RealtimeEventLog {
  /** Microphone appends seen, to log one per second of audio rather than one per 40 ms chunk. */
  private appendsLogged = 0;

  constructor(private readonly list: HTMLOListElement) {}

  add(direction: 'in' | 'out', event: RealtimeEvent): void {
    if (event.type === 'input_audio_buffer.append') {
      // One line per second of microphone audio, not one per 40 ms chunk.
      if (this.appendsLogged++ % 25 !== 0) return;
    }
    const shown = JSON.stringify(event, (k, v) =>
      (k === 'audio' || k === 'delta') && typeof v === 'string' && v.length > 60 ? `${v.slice(0, 24)}… (${v.length} chars)` : v,
    );
    this.list.append(element('li', { class: direction, text: `${direction === 'in' ? '↓' : '↑'} ${shown}` }));
    while (this.list.childElementCount > LOG_LIMIT) this.list.firstElementChild!.remove();
    this.list.scrollTop = this.list.scrollHeight;
  }

  clear(): void {
    this.list.replaceChildren();
  }
}
