import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import OpenAI from 'openai';

/** An application's webhook endpoint on loopback: records every delivery (raw body and headers) and answers 200. */
export class WebhookReceiver {
  readonly deliveries: Array<{ body: string; headers: IncomingHttpHeaders }> = [];
  url = '';
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(200).end();
    });
  });

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hooks/calls`;
    return this.url;
  }

  /** The delivery after the first `seen`, verified and parsed by the openai SDK's own webhook verification with `secret`. */
  async nextEvent(secret: string, seen: number, timeoutMs = 15_000): Promise<OpenAI.Webhooks.RealtimeCallIncomingWebhookEvent> {
    const deadline = Date.now() + timeoutMs;
    while (this.deliveries.length <= seen) {
      if (Date.now() > deadline) throw new Error(`no webhook delivery within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const { body, headers } = this.deliveries[seen]!;
    const event = await new OpenAI({ apiKey: 'unused' }).webhooks.unwrap(body, headers as Record<string, string>, secret);
    if (event.type !== 'realtime.call.incoming') throw new Error(`unexpected event ${event.type}`);
    return event;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}
