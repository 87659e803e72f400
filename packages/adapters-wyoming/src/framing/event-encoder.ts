import { PROTOCOL_VERSION } from './wyoming-event.js';

const NEWLINE = Buffer.from('\n');

/**
 * One event on the wire. All of its data goes in the data block (`data_length`), never in the
 * header line, as the reference library writes it: a large `info` (hundreds of voices) would
 * otherwise overflow the 64 KiB line a Python client reads.
 */
export function encodeEvent(type: string, data?: Record<string, unknown> | null, payload?: Uint8Array | null): Buffer {
  const header: Record<string, unknown> = { type, version: PROTOCOL_VERSION };
  const parts: Buffer[] = [];
  if (data && Object.keys(data).length > 0) {
    const block = Buffer.from(JSON.stringify(data), 'utf8');
    header.data_length = block.length;
    parts.push(block);
  }
  if (payload && payload.length > 0) {
    header.payload_length = payload.length;
    parts.push(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength));
  }
  return Buffer.concat([Buffer.from(JSON.stringify(header), 'utf8'), NEWLINE, ...parts]);
}
