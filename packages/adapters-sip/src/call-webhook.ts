import { createHmac, randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { silentLogger, type Logger } from '@svc/core';
import type { IncomingCall } from './sip-server.js';

/** Which addresses a webhook may be posted to (the media fetcher's AddressPolicy fits). */
export interface WebhookAddressPolicy {
  /** True when the operator allowlisted this host name (any address it resolves to is accepted). */
  hostAllowed(hostname: string): boolean;
  /** Null when the address may be connected to, else the reason it may not. */
  refusal(address: string): string | null;
}

export interface CallWebhookOptions {
  /** Where `realtime.call.incoming` is posted (http or https). */
  url: string;
  /** The Standard Webhooks secret, `whsec_` and base64 (as OpenAI's dashboard gives it). */
  secret: string;
  addressPolicy: WebhookAddressPolicy;
  /** One delivery attempt, connection to response. */
  attemptTimeoutMs: number;
  /** Attempts in all (the first and its retries); the waits between them double from `firstRetryMs`. */
  maxAttempts: number;
  firstRetryMs: number;
  resolve?: (hostname: string) => Promise<string[]>;
  logger?: Logger;
}

/**
 * Signs a payload as Standard Webhooks does (and OpenAI's webhooks, whose SDKs verify it): HMAC-SHA256
 * over `{id}.{timestamp}.{payload}` with the secret's bytes (the base64 after `whsec_`), sent as
 * `v1,{base64}` in `webhook-signature`.
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, payload: string): string {
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${payload}`).digest('base64')}`;
}

/**
 * Tells the application of a ringing call: `realtime.call.incoming` in OpenAI's event shape, signed
 * per Standard Webhooks, posted to the configured URL. A delivery that fails (a network error, a
 * timeout, a non-2xx answer) is retried with doubling waits, under the same `webhook-id` (so the
 * receiver can drop duplicates) and a fresh timestamp and signature, until one is taken, the
 * attempts run out, or the call stops ringing. The URL is checked like the media fetcher's: every
 * address its host resolves to must be public unless allowlisted, and the connection goes to the
 * address checked (no DNS rebinding); redirects are not followed. An address the rule refuses ends
 * the delivery at once: retrying would ask the same rule again, while the caller waits.
 */
export class CallWebhook {
  private readonly logger: Logger;
  private readonly resolve: (hostname: string) => Promise<string[]>;
  private readonly url: URL;

  constructor(private readonly options: CallWebhookOptions) {
    this.logger = options.logger ?? silentLogger;
    this.resolve = options.resolve ?? resolveAll;
    this.url = new URL(options.url);
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:')
      throw new Error(`the webhook URL must be http or https: '${options.url}'`);
  }

  /**
   * Delivers the event for the call (the call rings meanwhile). Resolves when a receiver took it or
   * `gone` aborted (the call stopped ringing); rejects, saying why, when nobody was told: every
   * attempt failed, or the address was refused.
   */
  announce(call: IncomingCall, gone: AbortSignal): Promise<void> {
    const payload = JSON.stringify({
      object: 'event',
      id: `evt_${randomBytes(12).toString('hex')}`,
      type: 'realtime.call.incoming',
      created_at: Math.floor(Date.now() / 1000),
      data: { call_id: call.callId, sip_headers: call.sipHeaders },
    });
    return this.deliver(`wh_${randomBytes(12).toString('hex')}`, payload, call.callId, gone);
  }

  private async deliver(webhookId: string, payload: string, callId: string, gone: AbortSignal): Promise<void> {
    const { maxAttempts } = this.options;
    let wait = this.options.firstRetryMs;
    for (let attempt = 1; ; attempt++) {
      let outcome: string | null;
      try {
        outcome = await this.post(webhookId, payload, gone);
      } catch (err) {
        if (gone.aborted) return;
        if (err instanceof WebhookAddressRefusedError) {
          this.logger.warn({ call: callId, attempt, reason: err.message }, 'realtime.call.incoming not delivered: address refused');
          throw new Error(`the webhook address was refused: ${err.message}`);
        }
        outcome = (err as Error).message;
      }
      if (outcome === null) {
        this.logger.info({ call: callId, attempt }, 'realtime.call.incoming delivered');
        return;
      }
      if (gone.aborted) return;
      this.logger.warn({ call: callId, attempt, reason: outcome }, 'realtime.call.incoming not delivered');
      if (attempt >= maxAttempts) throw new Error(`not delivered in ${maxAttempts} attempts; the last: ${outcome}`);
      await sleep(wait, gone);
      if (gone.aborted) return;
      wait *= 2;
    }
  }

  /** One attempt: null when the receiver answered 2xx, else why not. */
  private async post(webhookId: string, payload: string, gone: AbortSignal): Promise<string | null> {
    const address = await this.checkedAddress();
    const timestamp = Math.floor(Date.now() / 1000);
    const signal = AbortSignal.any([gone, AbortSignal.timeout(this.options.attemptTimeoutMs)]);
    const pinned: LookupFunction = (_hostname, options, callback) => {
      const family = isIP(address);
      if ((options as { all?: boolean }).all)
        (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        this.url,
        {
          method: 'POST',
          lookup: pinned,
          signal,
          agent: false,
          headers: {
            'Content-Type': 'application/json',
            'User-Agent': 'svc-realtime/1 (webhooks)',
            'webhook-id': webhookId,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signWebhook(this.options.secret, webhookId, timestamp, payload),
          },
        },
        (response) => {
          response.resume();
          const status = response.statusCode ?? 0;
          resolve(status >= 200 && status < 300 ? null : `the receiver answered HTTP ${status}`);
        },
      );
      req.on('error', (err) => reject(signal.aborted ? new Error(`no answer within ${this.options.attemptTimeoutMs} ms`) : err));
      req.end(payload);
    });
  }

  private checkedAddress(): Promise<string> {
    return webhookAddress(this.url, this.options.addressPolicy, this.resolve);
  }
}

/** Resolves a host name to every address it has (the system resolver, as a connection would). */
export const resolveAll = async (host: string): Promise<string[]> =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** An address the webhook may not be posted to (not public, and not allowlisted). */
class WebhookAddressRefusedError extends Error {}

/**
 * The address a webhook URL is posted to, when every address its host resolves to is allowed
 * (public, or the host allowlisted); throws saying why not (a WebhookAddressRefusedError when the
 * rule refused an address, another error when the name did not resolve). Checked again at every
 * delivery, since what a name resolves to can change.
 */
export async function webhookAddress(
  url: URL,
  policy: WebhookAddressPolicy,
  resolve: (hostname: string) => Promise<string[]> = resolveAll,
): Promise<string> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const addresses = isIP(host) ? [host] : await resolve(host);
  if (addresses.length === 0) throw new Error(`the host '${host}' has no address`);
  if (isIP(host) || !policy.hostAllowed(host)) {
    for (const address of addresses) {
      const refusal = policy.refusal(address);
      if (refusal) throw new WebhookAddressRefusedError(`'${host}' resolves to ${refusal}; allow it with SVC_SIP_WEBHOOK_ALLOWED_HOSTS`);
    }
  }
  return addresses.find((a) => isIP(a) === 4) ?? addresses[0]!;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    timer.unref?.();
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
