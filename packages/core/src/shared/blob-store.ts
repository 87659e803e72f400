/** Opaque binary storage (filesystem by default; object storage for scale-out). */
export interface BlobStore {
  put(key: string, data: Uint8Array): Promise<void>;
  /** Resolves to null when the key does not exist. */
  get(key: string): Promise<Uint8Array | null>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /**
   * Every blob whose key starts with `prefix`, with its last write time (ms since the epoch), in
   * no particular order. For housekeeping (SweepOrphanedBlobs); a store without it is not swept.
   */
  list?(prefix: string): AsyncIterable<ListedBlob>;
  /** Releases its connections (an object store's client); called once at shutdown. */
  close?(): Promise<void> | void;
}

export interface ListedBlob {
  key: string;
  modifiedAt: number;
}
