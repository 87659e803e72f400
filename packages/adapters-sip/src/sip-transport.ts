import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { createServer, isIP, type Server, type Socket as TcpSocket } from 'node:net';
import type { Logger } from '@svc/core';
import type { SourceAllowlist } from './source-allowlist.js';
import { SipStreamFramer } from './sip-stream-framer.js';

/** Where a request came from and its answers go: a UDP address, or the TCP connection it came on. */
export interface Peer {
  address: string;
  port: number;
  transport: 'UDP' | 'TCP';
  stream?: TcpSocket;
}

export interface SipTransportOptions {
  host: string;
  port: number;
  maxMessageBytes: number;
  allowed: SourceAllowlist;
  logger: Logger;
  /** Whether a TCP connection carries a call (an idle one without a call is closed). */
  carriesCall(connection: TcpSocket): boolean;
}

/** TCP connections at once (each holds a buffer of up to one message). */
const MAX_TCP_CONNECTIONS = 256;
/** A TCP connection with no call and nothing sent for this long is closed (a PBX's keep-alives are OPTIONS every 30-60 s). */
const TCP_IDLE_MS = 5 * 60 * 1000;

/**
 * SIP's two transports on one port: UDP datagrams, and TCP connections framed by Content-Length
 * (answers on the connection they came on). Hands every message to `onMessage` with its peer;
 * a connection from a source not allowed is closed at once, one that breaks the framing too.
 */
export class SipTransport {
  private socket: Socket | null = null;
  private tcp: Server | null = null;
  private readonly connections = new Set<TcpSocket>();
  local = { address: '127.0.0.1', port: 0 };

  constructor(
    private readonly options: SipTransportOptions,
    private readonly onMessage: (data: Buffer, peer: Peer) => void,
  ) {}

  get open(): boolean {
    return this.socket !== null;
  }

  async listen(): Promise<void> {
    const socket = createSocket({ type: isIP(this.options.host) === 6 ? 'udp6' : 'udp4' });
    this.socket = socket;
    socket.on('message', (data, rinfo: RemoteInfo) => this.onMessage(data, { address: rinfo.address, port: rinfo.port, transport: 'UDP' }));
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(this.options.port, this.options.host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    socket.on('error', (err) => this.options.logger.warn({ err: String(err) }, 'SIP socket error'));
    const { address, port } = socket.address();
    this.local = { address, port };
    await this.listenTcp();
  }

  send(message: Buffer, peer: Peer): void {
    if (peer.stream) {
      if (!peer.stream.destroyed) peer.stream.write(message);
      return;
    }
    this.socket?.send(message, peer.port, peer.address);
  }

  async close(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
    const tcp = this.tcp;
    this.tcp = null;
    if (tcp) {
      const closed = new Promise<void>((resolve) => tcp.close(() => resolve()));
      for (const connection of this.connections) connection.destroy();
      await closed;
    }
  }

  /** The same port over TCP: each connection framed by Content-Length, answers on the connection. */
  private async listenTcp(): Promise<void> {
    const tcp = createServer((connection) => this.onConnection(connection));
    tcp.maxConnections = MAX_TCP_CONNECTIONS;
    this.tcp = tcp;
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(this.local.port, this.options.host, () => {
        tcp.off('error', reject);
        resolve();
      });
    });
    tcp.on('error', (err) => this.options.logger.warn({ err: String(err) }, 'SIP TCP server error'));
  }

  private onConnection(connection: TcpSocket): void {
    const address = connection.remoteAddress ?? '';
    const { logger } = this.options;
    if (!this.options.allowed.allows(address)) {
      logger.info({ from: address }, 'SIP connection refused: source address not allowed (SVC_SIP_ALLOWED_SOURCES)');
      connection.destroy();
      return;
    }
    this.connections.add(connection);
    const framer = new SipStreamFramer(this.options.maxMessageBytes);
    const peer: Peer = { address, port: connection.remotePort ?? 0, transport: 'TCP', stream: connection };
    connection.setTimeout(TCP_IDLE_MS, () => {
      if (!this.options.carriesCall(connection)) connection.destroy();
    });
    connection.on('data', (chunk: Buffer) => {
      let messages: Buffer[];
      try {
        messages = framer.push(chunk);
      } catch (err) {
        logger.debug({ from: address, reason: (err as Error).message }, 'closed a SIP connection that broke the framing');
        connection.destroy();
        return;
      }
      for (const message of messages) this.onMessage(message, peer);
    });
    connection.on('error', () => undefined);
    connection.on('close', () => this.connections.delete(connection));
  }
}
