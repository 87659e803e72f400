import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A media host on loopback for inputs given as URLs (ref_audio, ref_image, input): serves bytes by
 * path and records every request that reaches it, so a test can tell what the server downloaded. A
 * held path answers nothing until `release()`: a download in progress for as long as a test needs.
 * The server fetches it only with SVC_MEDIA_ALLOWED_HOSTS=127.0.0.1 (loopback is refused otherwise).
 */
export class MediaHost {
  /** The paths requested, in order of arrival. */
  readonly requests: string[] = [];
  /** Held requests whose connection closed before they were answered (the server gave the download up). */
  abandoned = 0;
  private readonly files = new Map<string, Uint8Array>();
  private readonly heldPaths = new Set<string>();
  private readonly held: Array<{ path: string; res: ServerResponse }> = [];
  private readonly waiting: Array<{ path: string; arrived: () => void }> = [];
  private readonly server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    this.requests.push(path);
    for (const w of this.waiting.filter((w) => w.path === path)) {
      this.waiting.splice(this.waiting.indexOf(w), 1);
      w.arrived();
    }
    if (!this.heldPaths.has(path)) return this.answer(path, res);
    this.held.push({ path, res });
    res.on('close', () => {
      if (!res.writableEnded) this.abandoned++;
    });
  });

  /** Starts listening; resolves to the host's base URL (`http://127.0.0.1:<port>`). */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  serve(path: string, bytes: Uint8Array): void {
    this.files.set(path, bytes);
  }

  /** Requests for `path` wait unanswered until `release()`. */
  hold(path: string): void {
    this.heldPaths.add(path);
  }

  /** Resolves when the next request for `path` reaches the host. */
  arrival(path: string): Promise<void> {
    return new Promise((arrived) => this.waiting.push({ path, arrived }));
  }

  /** Answers every held request still open. */
  release(): void {
    for (const { path, res } of this.held.splice(0)) if (!res.destroyed) this.answer(path, res);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(path: string, res: ServerResponse): void {
    const bytes = this.files.get(path);
    if (!bytes) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(bytes);
  }
}
