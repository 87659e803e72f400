/** Where a session writes its events: in order, resolving once the connection can take more. */
export interface EventSink {
  send(type: string, data?: Record<string, unknown> | null, payload?: Uint8Array | null): Promise<void>;
}
