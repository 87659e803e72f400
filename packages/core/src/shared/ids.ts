/** Random identifiers and secrets; an adapter supplies cryptographic randomness. */
export interface IdGenerator {
  /** A new id with the given prefix, e.g. id('sess_') -> 'sess_3f9a...'. */
  id(prefix: string): string;
  /** A high-entropy secret string (for API keys and client secrets). */
  secret(prefix: string): string;
}

/** One-way digests: secrets are stored as digests, content ids are derived from digests. */
export interface Hasher {
  /** Hex SHA-256 of a UTF-8 string or of bytes. */
  sha256(data: string | Uint8Array): string;
}
