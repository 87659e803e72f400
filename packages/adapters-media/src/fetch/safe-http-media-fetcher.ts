import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import {
  decodeInlineMedia,
  InvalidMediaUrlError,
  MAX_INLINE_MEDIA_SIZE,
  MediaFetchFailedError,
  MediaFetchTimeoutError,
  MediaTooLargeError,
  MediaUrlNotAllowedError,
  parseMediaReference,
  type MediaFetcher,
  type MediaFetchOptions,
  type MediaInput,
} from '@svc/core';
import { AddressPolicy } from './address-policy.js';

export interface SafeHttpMediaFetcherOptions {
  /** Host names, addresses or CIDR ranges that may be fetched even though they are not public. */
  allowedHosts?: readonly string[];
  /** Cap of a download, enforced while the body streams in. Default 25 MB. */
  maxDownloadBytes?: number;
  /** Cap of inline base64 / data URI text and of uploaded bytes. Default 10 MB (the spec's). */
  maxInlineBytes?: number;
  /** Whole fetch, all redirects included. Default 10 s. */
  timeoutMs?: number;
  /** Default 3. */
  maxRedirects?: number;
  /** Name resolution (tests substitute it to simulate DNS answers). */
  resolve?: (hostname: string) => Promise<string[]>;
}

const DEFAULTS = { maxDownloadBytes: 25 * 1024 * 1024, timeoutMs: 10_000, maxRedirects: 3 };

/**
 * MediaFetcher for http(s) URLs, data URIs, base64 and uploaded bytes. URLs are fetched defensively
 * (server-side request forgery is the risk of any "fetch this URL for me" feature):
 * - only http and https;
 * - the host is resolved here and EVERY address must be public (or allowlisted); the connection then
 *   goes to the checked address (pinned), with the Host header and TLS name of the URL, so a DNS
 *   answer that changes between check and connect (rebinding) cannot redirect it;
 * - every redirect hop is checked the same way, at most `maxRedirects` of them;
 * - one deadline covers the whole fetch; the size cap is enforced while streaming.
 */
export class SafeHttpMediaFetcher implements MediaFetcher {
  private readonly policy: AddressPolicy;
  private readonly maxDownloadBytes: number;
  private readonly maxInlineBytes: number;
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly resolve: (hostname: string) => Promise<string[]>;

  constructor(options: SafeHttpMediaFetcherOptions = {}) {
    this.policy = new AddressPolicy(options.allowedHosts ?? []);
    this.maxDownloadBytes = options.maxDownloadBytes ?? DEFAULTS.maxDownloadBytes;
    this.maxInlineBytes = options.maxInlineBytes ?? MAX_INLINE_MEDIA_SIZE;
    this.timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.maxRedirects = options.maxRedirects ?? DEFAULTS.maxRedirects;
    this.resolve = options.resolve ?? (async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address));
  }

  async fetch(input: MediaInput, options: MediaFetchOptions): Promise<Uint8Array> {
    const { param } = options;
    if (input instanceof Uint8Array) {
      if (input.length > this.maxInlineBytes) throw new MediaTooLargeError(param, this.maxInlineBytes, 'upload');
      return input;
    }
    const reference = parseMediaReference(input, param);
    if (reference.kind === 'inline') return decodeInlineMedia(reference.base64, param, this.maxInlineBytes, options);
    return this.download(reference.url, param, options.signal);
  }

  /** The scheme and the SSRF address policy of a URL (its host resolved), within the fetch timeout; nothing is downloaded. */
  async checkUrl(url: string, options: MediaFetchOptions): Promise<void> {
    const { param, signal } = options;
    await this.withinDeadline(param, signal, async (deadline) => void (await this.checkedAddress(parseUrl(url, param), param, deadline)));
  }

  private download(startUrl: string, param: string, outer?: AbortSignal): Promise<Uint8Array> {
    return this.withinDeadline(param, outer, async (deadline) => {
      let url = parseUrl(startUrl, param);
      for (let hop = 0; ; hop++) {
        const address = await this.checkedAddress(url, param, deadline);
        const response = await this.get(url, address, deadline, param);
        const location = response.headers.location;
        if (response.statusCode && response.statusCode >= 300 && response.statusCode < 400 && location) {
          response.resume();
          if (hop >= this.maxRedirects) {
            throw new MediaFetchFailedError(`'${param}': more than ${this.maxRedirects} redirects.`, param);
          }
          url = parseUrl(new URL(location, url).toString(), param);
          continue;
        }
        if (response.statusCode !== 200) {
          response.resume();
          throw new MediaFetchFailedError(`'${param}': the media URL answered HTTP ${response.statusCode}.`, param);
        }
        return await this.readBody(response, param, deadline);
      }
    });
  }

  /**
   * Runs `work` under the fetch timeout (SVC_MEDIA_FETCH_TIMEOUT_MS), also ended by the caller's
   * signal: the caller's abort is rethrown as its reason, the timeout as media_fetch_timeout.
   */
  private async withinDeadline<T>(param: string, outer: AbortSignal | undefined, work: (deadline: AbortSignal) => Promise<T>): Promise<T> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    const onOuterAbort = () => deadline.abort(outer?.reason);
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      return await work(deadline.signal);
    } catch (err) {
      if (outer?.aborted) throw outer.reason ?? err;
      if (deadline.signal.aborted) throw new MediaFetchTimeoutError(param, this.timeoutMs);
      throw err;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    }
  }

  /** Resolves the host and returns the address to connect to, if every answer is allowed. */
  private async checkedAddress(url: URL, param: string, deadline: AbortSignal): Promise<string> {
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    let addresses: string[];
    if (isIP(host)) {
      addresses = [host];
    } else {
      try {
        // The deadline covers name resolution too: a slow resolver must not hold the request.
        addresses = await untilAborted(this.resolve(host), deadline);
      } catch (err) {
        if (deadline.aborted) throw err;
        throw new MediaFetchFailedError(`'${param}': the host '${host}' could not be resolved.`, param);
      }
      if (addresses.length === 0) throw new MediaFetchFailedError(`'${param}': the host '${host}' has no address.`, param);
    }
    if (!isIP(host) && this.policy.hostAllowed(host)) return preferIpv4(addresses);
    for (const address of addresses) {
      const refusal = this.policy.refusal(address);
      if (refusal) {
        throw new MediaUrlNotAllowedError(
          `'${param}': '${host}' resolves to ${refusal}; only public addresses can be fetched (operators can allow hosts with SVC_MEDIA_ALLOWED_HOSTS).`,
          param,
        );
      }
    }
    return preferIpv4(addresses);
  }

  private get(url: URL, address: string, signal: AbortSignal, param: string): Promise<IncomingMessage> {
    // The connection goes to the checked address whatever a second DNS answer would say.
    const pinned: LookupFunction = (_hostname, options, callback) => {
      const family = isIP(address);
      if ((options as { all?: boolean }).all)
        (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        url,
        {
          method: 'GET',
          lookup: pinned,
          signal,
          headers: { 'User-Agent': 'svc-media-fetcher/1', Accept: 'audio/*, image/*, */*;q=0.5', 'Accept-Encoding': 'identity' },
          agent: false,
        },
        resolve,
      );
      req.on('error', (err) => {
        if (signal.aborted) reject(err);
        else reject(connectionFailed(err, param));
      });
      req.end();
    });
  }

  /**
   * The body, whole. `deadline` aborting destroys the connection; a body delimited by the connection's
   * close (no Content-Length, no chunked encoding) then ENDS normally with the bytes received so far,
   * so an end after the deadline is a timeout, never the media.
   */
  private readBody(response: IncomingMessage, param: string, deadline: AbortSignal): Promise<Uint8Array> {
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > this.maxDownloadBytes) {
      response.destroy();
      return Promise.reject(new MediaTooLargeError(param, this.maxDownloadBytes, 'download'));
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let total = 0;
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        outcome();
      };
      response.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > this.maxDownloadBytes) {
          settle(() => reject(new MediaTooLargeError(param, this.maxDownloadBytes, 'download')));
          // Stop reading at once: the rest of an oversize body is never downloaded.
          response.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () =>
        settle(() => {
          if (deadline.aborted) return reject(deadline.reason);
          const body = Buffer.concat(chunks, total);
          resolve(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
        }),
      );
      // A reset mid-body is the media host's failure, told as such (never a raw socket error).
      response.on('error', (err) => settle(() => reject(connectionFailed(err, param))));
      response.on('aborted', () =>
        settle(() => reject(new MediaFetchFailedError(`'${param}': the media download was interrupted.`, param))),
      );
    });
  }
}

/** What the connection's failure says about the media host, as the caller's error (400 media_fetch_failed). */
function connectionFailed(err: Error, param: string): MediaFetchFailedError {
  const code = (err as NodeJS.ErrnoException).code;
  const what =
    code === 'ECONNREFUSED'
      ? 'the media host refused the connection'
      : code === 'ECONNRESET'
        ? 'the media host reset the connection'
        : code === 'EHOSTUNREACH' || code === 'ENETUNREACH'
          ? 'the media host cannot be reached'
          : 'could not fetch the media URL';
  return new MediaFetchFailedError(`'${param}': ${what} (${code ?? err.message}).`, param);
}

function parseUrl(text: string, param: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidMediaUrlError(`'${param}' is not a valid URL.`, param);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new MediaUrlNotAllowedError(`'${param}': only http and https URLs can be fetched (got '${url.protocol}').`, param);
  }
  return url;
}

function preferIpv4(addresses: string[]): string {
  return addresses.find((a) => isIP(a) === 4) ?? addresses[0]!;
}

/** Settles with `work`, or rejects as soon as `signal` aborts (the work itself is left to finish). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
