import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A "Redis" that accepts the connection and answers the client's handshake and ready check (INFO), then answers
 * nothing more: a Redis that is paused, swapping or behind a network that drops packets. Connected,
 * so ioredis's fail-fast rules (no offline queue) do not apply: only a command deadline does.
 */
export async function silentRedis(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // The handshake: CLIENT SETINFO (ioredis 5.x) answered OK, the ready check's INFO answered; nothing else ever.
    socket.on('data', (data) => {
      const text = data.toString('latin1');
      for (const _ of text.matchAll(/\r\nclient\r\n/gi)) socket.write('+OK\r\n');
      if (/\r\ninfo\r\n/i.test(text)) {
        const info = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';
        socket.write(`$${info.length}\r\n${info}\r\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
