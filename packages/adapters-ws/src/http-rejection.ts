import type { Duplex } from 'node:stream';

/** Answers an upgrade request with a plain HTTP error (before any WebSocket exists). */
export function rejectUpgrade(socket: Duplex, status: number, statusText: string, message: string, type: string): void {
  const body = JSON.stringify({ error: { message, type } });
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status} ${statusText}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
