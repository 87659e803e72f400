/**
 * An AbortController whose signal also aborts when its parent's does. A realtime session's signal
 * is the parent of every turn, response and summary it starts, so ending the session ends them all
 * without a list of what is still running; `abort()` ends only this one.
 */
export class ChildAbortController {
  private readonly own = new AbortController();
  readonly signal: AbortSignal;

  constructor(parent: AbortSignal) {
    this.signal = AbortSignal.any([parent, this.own.signal]);
  }

  abort(): void {
    this.own.abort();
  }
}
