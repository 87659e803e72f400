import { createRequire } from 'node:module';
import type { S3Client } from '@aws-sdk/client-s3';
import type { BlobStore, ListedBlob } from '@svc/core';
import { unavailable } from '../unavailable.js';

/** The AWS SDK, loaded when an S3 store is made (the filesystem store never loads it). */
const sdk = (): typeof import('@aws-sdk/client-s3') =>
  createRequire(import.meta.url)('@aws-sdk/client-s3') as typeof import('@aws-sdk/client-s3');

export interface S3BlobStoreOptions {
  bucket: string;
  /** e.g. http://127.0.0.1:9000 for an S3-compatible server; unset: AWS S3 of `region`. */
  endpoint?: string;
  region: string;
  /** Unset: the AWS SDK's default credential chain (environment, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Bucket in the path (http://host/bucket/key), as most S3-compatible servers want. */
  forcePathStyle: boolean;
  /** Prepended to every key (several deployments in one bucket). */
  keyPrefix?: string;
  /** A connection not made by then is abandoned (default S3_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** A request whose connection sends and receives nothing for this long fails (default S3_IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
}

/**
 * Deadlines of every S3 request. The AWS SDK has none by default, so a server that accepts
 * connections and never answers (paused, a gone backend behind a load balancer, a network that drops
 * packets) held blob reads, writes and /readyz forever. Idle, not total: a large object that keeps
 * flowing is never cut. The SDK retries a timed-out request (3 attempts in all), so a silent server
 * fails a call after about three times this.
 */
export const S3_CONNECT_TIMEOUT_MS = 3_000;
export const S3_IDLE_TIMEOUT_MS = 5_000;

/**
 * Blobs as objects in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, Garage, s3rver...): what every
 * process of a multi-process deployment reads and writes. A PUT is atomic (a reader sees the whole
 * object or none), so no temporary names are needed.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3BlobStoreOptions) {
    this.client = new (sdk().S3Client)({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      // Checksums only where S3 requires them: many S3-compatible servers reject the SDK's newer
      // default (aws-chunked uploads with trailing CRC32 checksums).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      requestHandler: {
        connectionTimeout: options.connectTimeoutMs ?? S3_CONNECT_TIMEOUT_MS,
        socketTimeout: options.idleTimeoutMs ?? S3_IDLE_TIMEOUT_MS,
      },
    });
    this.bucket = options.bucket;
    this.prefix = options.keyPrefix ?? '';
  }

  async put(key: string, data: Uint8Array): Promise<void> {
    await this.client
      .send(new (sdk().PutObjectCommand)({ Bucket: this.bucket, Key: this.keyOf(key), Body: data, ContentLength: data.length }))
      .catch(rethrow);
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      const res = await this.client.send(new (sdk().GetObjectCommand)({ Bucket: this.bucket, Key: this.keyOf(key) }));
      return res.Body ? await res.Body.transformToByteArray() : new Uint8Array(0);
    } catch (err) {
      if (isNotFound(err)) return null;
      return rethrow(err);
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new (sdk().DeleteObjectCommand)({ Bucket: this.bucket, Key: this.keyOf(key) })).catch(rethrow);
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new (sdk().HeadObjectCommand)({ Bucket: this.bucket, Key: this.keyOf(key) }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      return rethrow(err);
    }
  }

  async *list(prefix: string): AsyncIterable<ListedBlob> {
    let token: string | undefined;
    do {
      const page = await this.client
        .send(
          new (sdk().ListObjectsV2Command)({
            Bucket: this.bucket,
            Prefix: this.prefix + prefix,
            ...(token ? { ContinuationToken: token } : {}),
          }),
        )
        .catch(rethrow);
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        yield { key: object.Key.slice(this.prefix.length), modifiedAt: object.LastModified?.getTime() ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** Readiness: the bucket exists and these credentials reach it (the driver's own error: /readyz shows why). */
  async checkWritable(): Promise<void> {
    await this.client.send(new (sdk().HeadBucketCommand)({ Bucket: this.bucket }));
  }

  close(): void {
    this.client.destroy();
  }

  /** The same key alphabet as the filesystem store, so a key valid in one is valid in the other. */
  private keyOf(key: string): string {
    if (!/^[A-Za-z0-9._\-/]+$/.test(key) || key.split('/').some((p) => p === '' || p === '.' || p === '..')) {
      throw new Error(`Invalid blob key '${key}'.`);
    }
    return this.prefix + key;
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

/**
 * A store that cannot be reached or does not answer (refused, reset, unknown host, timed out, its
 * own 5xx) as the service's 503 "retry later" naming the blob store; anything else (access denied, a
 * bug) as it is. Without this a refused connection read as "its database does not answer" (the
 * connection patterns of the database) and a timeout as a 500.
 */
function rethrow(err: unknown): never {
  const e = err as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode ?? 0;
  const down =
    e.name === 'TimeoutError' ||
    /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/.test(String(e.code ?? '')) ||
    /socket hang up/i.test(String(e.message ?? '')) ||
    status >= 500;
  throw down ? unavailable(err, 'blob store') : err;
}
