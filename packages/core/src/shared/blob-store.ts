/** Opaque binary storage (filesystem by default; object storage for scale-out). */
export interface BlobStore {
  put(key: string, data: Uint8Array): Promise<void>;
  /** Resolves to null when the key does not exist. */
  get(key: string): Promise<Uint8Array | null>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
}
