import type { Duplex } from 'node:stream';

/** Answers an upgrade request with an HTTP error in the REST error shape (before any WebSocket exists). */
export function rejectUpgrade(
  socket: Duplex,
  status: number,
  statusText: string,
  message: string,
  type: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ error: { message, type, code: type, param: null } });
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status} ${statusText}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json\r\n' +
      extra +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

/**
 * The `ws` library's handshake refusals (bad method, missing Sec-WebSocket-Key, unsupported
 * version, malformed subprotocol or extension header), which it would answer as text/html, as REST
 * errors. `ws` reports only its message, so the status is recovered from it.
 */
export function rejectInvalidHandshake(socket: Duplex, err: Error): void {
  const message = `Invalid WebSocket handshake: ${err.message}.`;
  if (/HTTP method/i.test(err.message)) return rejectUpgrade(socket, 405, 'Method Not Allowed', message, 'method_not_allowed');
  if (/Sec-WebSocket-Version/i.test(err.message)) {
    return rejectUpgrade(socket, 426, 'Upgrade Required', message, 'invalid_request_error', { 'Sec-WebSocket-Version': '13, 8' });
  }
  rejectUpgrade(socket, 400, 'Bad Request', message, 'invalid_request_error');
}
