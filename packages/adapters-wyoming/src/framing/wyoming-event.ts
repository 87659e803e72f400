/**
 * One Wyoming event as it travels (the protocol of OHF-Voice/wyoming, formerly rhasspy/wyoming):
 * a JSON header line `{"type", "data"?, "data_length"?, "payload_length"?, "version"?}` and a
 * newline, then `data_length` bytes of JSON merged over the header's `data`, then
 * `payload_length` bytes of binary payload (PCM audio).
 */
export interface WyomingEvent {
  type: string;
  data: Record<string, unknown>;
  payload: Buffer | null;
}

/** The protocol version this server speaks (sent in each header's `version`, as the reference library does). */
export const PROTOCOL_VERSION = '1.9.0';

/** What one connection may send, each checked before the bytes are read. */
export interface FramingLimits {
  /** Longest header line (the JSON object and its newline). */
  maxLineBytes: number;
  /** Largest `data_length`. */
  maxDataBytes: number;
  /** Largest `payload_length`. */
  maxPayloadBytes: number;
}
