import { element } from './dom.js';

/** The conversation as bubbles: the user's turns and the assistant's replies, by the ids the server gives them. */
export class RealtimeTranscript {
  /** The user's spoken turns, by input item id (filled in when the transcription completes). */
  readonly users = new Map<string, HTMLLIElement>();
  /** The assistant's replies, by response id. */
  readonly replies = new Map<string, HTMLLIElement>();
  /** Assistant items truncated at a barge-in, until the server's copy shows what was kept. */
  readonly truncated = new Map<string, HTMLLIElement>();

  constructor(private readonly list: HTMLOListElement) {}

  bubble(role: 'user' | 'assistant', text: string): HTMLLIElement {
    const li = element('li', { class: role, text });
    this.list.append(li);
    return li;
  }

  /** A new session is a new conversation. */
  clear(): void {
    this.list.replaceChildren();
    this.users.clear();
    this.replies.clear();
  }
}
