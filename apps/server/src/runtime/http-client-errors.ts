import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { httpStatusOf, restErrorBody } from '@svc/adapters-http';
import { InvalidRequestError, RequestHeaderTooLargeError, RequestTimeoutError, type Logger, type ServiceError } from '@svc/core';

/**
 * Requests node's HTTP parser refuses before any route runs (headers over the size limit, a
 * malformed request line, headers too slow) would get node's own answer: a status line and an
 * empty body. This answers them in the REST error shape like every other error, then closes.
 */
export function answerClientErrorsAsJson(server: Server, logger: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const error = errorFor(err.code);
    const status = httpStatusOf(error);
    logger.debug({ code: err.code, status }, 'malformed HTTP request refused');
    const body = JSON.stringify(restErrorBody(error));
    socket.end(
      `HTTP/1.1 ${status} ${REASONS[status] ?? 'Bad Request'}\r\n` +
        'Connection: close\r\n' +
        'Content-Type: application/json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      () => socket.destroy(),
    );
  });
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

function errorFor(code: string | undefined): ServiceError {
  if (code === 'HPE_HEADER_OVERFLOW') return new RequestHeaderTooLargeError();
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new RequestTimeoutError();
  return new InvalidRequestError('The request is not valid HTTP.');
}
