// A local HTTP server with the behaviours the media fetcher must survive (not a test file itself).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MediaTestServer {
  port: number;
  /** Bytes the /endless route managed to write before the client hung up. */
  endlessBytesSent(): number;
  close(): Promise<void>;
}

export const SMALL_BODY = Buffer.from('RIFF....WAVEfmt this is not really audio but it is bytes');

export async function startMediaTestServer(): Promise<MediaTestServer> {
  let endlessSent = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const port = (server.address() as AddressInfo).port;
    const route = url.pathname;
    if (route === '/audio.wav') return void res.writeHead(200, { 'Content-Type': 'audio/wav' }).end(SMALL_BODY);
    if (route === '/host') return void res.writeHead(200).end(req.headers.host ?? '');
    if (route === '/missing') return void res.writeHead(404).end('nope');
    if (route === '/redirect-relative') return void res.writeHead(302, { Location: '/audio.wav' }).end();
    if (route === '/redirect-to') return void res.writeHead(302, { Location: url.searchParams.get('target')! }).end();
    if (route === '/redirect-private') return void res.writeHead(302, { Location: `http://127.0.0.1:${port}/audio.wav` }).end();
    if (route === '/redirect-chain') {
      const n = Number(url.searchParams.get('n'));
      const location = n > 0 ? `/redirect-chain?n=${n - 1}` : '/audio.wav';
      return void res.writeHead(302, { Location: location }).end();
    }
    if (route === '/declared-huge') return void res.writeHead(200, { 'Content-Length': String(1024 * 1024 * 1024) }).end();
    if (route === '/endless') return endless(res, (n) => (endlessSent += n));
    if (route === '/slow-headers') return void setTimeout(() => res.writeHead(200).end(SMALL_BODY), 5000).unref();
    if (route === '/slow-body') {
      res.writeHead(200);
      const timer = setInterval(() => res.write('x'), 200);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (route === '/slow-body-close-delimited') {
      // No Content-Length and no chunked encoding: the body ends when the connection closes (as
      // HTTP/1.0 servers and many static hosts send it), so a cut connection looks like a normal end.
      const socket = req.socket;
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: audio/wav\r\nConnection: close\r\n\r\n');
      const timer = setInterval(() => socket.write('x'), 50);
      socket.on('close', () => clearInterval(timer));
      return;
    }
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    endlessBytesSent: () => endlessSent,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes 64 KB chunks (no Content-Length) until the client goes away or 200 MB were sent. */
function endless(res: ServerResponse, sent: (n: number) => void): void {
  res.writeHead(200, { 'Content-Type': 'audio/wav' });
  const chunk = Buffer.alloc(64 * 1024, 1);
  let total = 0;
  const pump = () => {
    while (total < 200 * 1024 * 1024) {
      if (res.destroyed) return;
      total += chunk.length;
      sent(chunk.length);
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}
