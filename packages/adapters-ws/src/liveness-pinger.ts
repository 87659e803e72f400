import WebSocket from 'ws';
import type { RealtimeConnection } from './realtime-connection.js';

/**
 * Pings every open socket each `everyMs`; one that has not answered the previous ping is
 * terminated (a peer gone without a close). Returns its stop; null when disabled (0).
 */
export function startLivenessPinger(sockets: ReadonlyMap<WebSocket, RealtimeConnection>, everyMs: number): (() => void) | null {
  if (everyMs <= 0) return null;
  const timer = setInterval(() => {
    for (const [ws, connection] of sockets) {
      if (!connection.alive) {
        ws.terminate();
        continue;
      }
      connection.alive = false;
      if (ws.readyState === WebSocket.OPEN) ws.ping();
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
