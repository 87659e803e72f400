import { join } from 'node:path';
import type { BlobStore } from '@svc/core';
import { FileSystemBlobStore, S3BlobStore } from '@svc/adapters-storage';

/** The blob store settings (declared by the scale module, docs/deployment.md). */
export interface BlobStoreSettings {
  SVC_BLOB_STORE: 'fs' | 's3';
  SVC_BLOB_DIR: string;
  SVC_S3_BUCKET: string;
  SVC_S3_ENDPOINT: string;
  SVC_S3_REGION: string;
  SVC_S3_ACCESS_KEY_ID: string;
  SVC_S3_SECRET_ACCESS_KEY: string;
  SVC_S3_FORCE_PATH_STYLE: boolean;
  SVC_S3_KEY_PREFIX: string;
}

/** A blob store that can also answer readiness and be closed. */
export type ConfiguredBlobStore = BlobStore & { checkWritable(): Promise<void>; close?(): void };

/**
 * Files under SVC_BLOB_DIR (default <dataDir>/blobs; a shared volume for several processes), or an
 * S3-compatible bucket every process reaches.
 */
export function openBlobStore(dataDir: string, s: BlobStoreSettings): ConfiguredBlobStore {
  if (s.SVC_BLOB_STORE === 'fs') return new FileSystemBlobStore(s.SVC_BLOB_DIR || join(dataDir, 'blobs'));
  return new S3BlobStore({
    bucket: s.SVC_S3_BUCKET,
    region: s.SVC_S3_REGION,
    forcePathStyle: s.SVC_S3_FORCE_PATH_STYLE,
    keyPrefix: s.SVC_S3_KEY_PREFIX,
    ...(s.SVC_S3_ENDPOINT ? { endpoint: s.SVC_S3_ENDPOINT } : {}),
    ...(s.SVC_S3_ACCESS_KEY_ID
      ? { credentials: { accessKeyId: s.SVC_S3_ACCESS_KEY_ID, secretAccessKey: s.SVC_S3_SECRET_ACCESS_KEY } }
      : {}),
  });
}
