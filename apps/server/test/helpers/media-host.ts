import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A media host on loopback for inputs given as URLs (ref_audio, ref_image, input): serves bytes by
 * path and records every request that reaches it, so a test can tell what the server downloaded.
 * The server fetches it only with SVC_MEDIA_ALLOWED_HOSTS=127.0.0.1 (loopback is refused otherwise).
 */
export class MediaHost {
  /** The paths requested, in order of arrival. */
  readonly requests: string[] = [];
  private readonly files = new Map<string, Uint8Array>();
  private readonly server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    this.requests.push(path);
    const bytes = this.files.get(path);
    if (!bytes) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(bytes);
  });

  /** Starts listening; resolves to the host's base URL (`http://127.0.0.1:<port>`). */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  serve(path: string, bytes: Uint8Array): void {
    this.files.set(path, bytes);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
