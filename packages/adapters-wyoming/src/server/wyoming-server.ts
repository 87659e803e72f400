import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { ServiceUnavailableError } from '@svc/core';
import { encodeEvent } from '../framing/event-encoder.js';
import type { WyomingLimits, WyomingServices } from '../ports.js';
import { WyomingConnection } from './wyoming-connection.js';

export interface WyomingListenOptions {
  host: string;
  /** 0: a free port (tests). */
  port: number;
}

/**
 * The Wyoming TCP server: one WyomingConnection per client, at most `maxConnections` at once (one
 * more gets an `error` event, code `service_unavailable`, and is closed). Wyoming has no
 * authentication: the host it binds decides who can reach it.
 */
export class WyomingServer {
  private readonly connections = new Set<WyomingConnection>();

  private constructor(
    private readonly server: Server,
    private readonly services: WyomingServices,
    private readonly limits: WyomingLimits,
  ) {
    server.on('connection', (socket) => this.accept(socket));
  }

  /** Listens on host:port; rejects when it cannot (the port is taken, the host is not an address of this machine). */
  static async listen(services: WyomingServices, limits: WyomingLimits, options: WyomingListenOptions): Promise<WyomingServer> {
    // allowHalfOpen: a client that ends its side after its last event still gets the answers.
    const server = createServer({ allowHalfOpen: true, noDelay: true });
    const wyoming = new WyomingServer(server, services, limits);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => services.logger.error({ err: err.message }, 'wyoming server error'));
    return wyoming;
  }

  get address(): { host: string; port: number } {
    const { address, port } = this.server.address() as AddressInfo;
    return { host: address, port };
  }

  get activeConnections(): number {
    return this.connections.size;
  }

  /**
   * Stops accepting; idle connections close at once, busy ones get `graceMs` to finish what they
   * are doing before they are cut (their work is then aborted).
   */
  async close(graceMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    const all = [...this.connections];
    for (const c of all) if (!c.busy) c.destroy();
    let timer: NodeJS.Timeout | undefined;
    const cut = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all(all.map((c) => c.idle())), cut]);
    clearTimeout(timer);
    for (const c of this.connections) c.destroy();
    await Promise.all(all.map((c) => c.closedPromise));
    await closed;
  }

  private accept(socket: Socket): void {
    if (this.connections.size >= this.limits.maxConnections) {
      const error = new ServiceUnavailableError(
        'Wyoming port',
        `The Wyoming port serves at most ${this.limits.maxConnections} connections at once; retry shortly.`,
      );
      this.services.logger.warn({ max: this.limits.maxConnections }, 'wyoming connection refused: too many open');
      socket.on('error', () => undefined);
      socket.end(encodeEvent('error', { text: error.message, code: error.identifier }));
      setTimeout(() => socket.destroy(), 2000).unref();
      return;
    }
    const connection = new WyomingConnection(socket, this.services, this.limits);
    this.connections.add(connection);
    void connection.closedPromise.then(() => this.connections.delete(connection));
  }
}
