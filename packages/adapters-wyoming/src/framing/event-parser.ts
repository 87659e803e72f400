import { InvalidJsonError, InvalidRequestError, parseCallerJson, PayloadTooLargeError } from '@svc/core';
import type { FramingLimits, WyomingEvent } from './wyoming-event.js';

const NEWLINE = 0x0a;
const MAX_TYPE_CHARS = 64;

interface Header {
  type: string;
  data: Record<string, unknown>;
  dataLength: number;
  payloadLength: number;
}

/**
 * Cuts a connection's byte stream into events. Every declared length is checked against the
 * limits as soon as its header line has arrived, so a header that announces a 2 GB payload is
 * refused without one byte of it being read or kept; a line that grows past its limit without a
 * newline is refused as soon as the limit is passed. Anything malformed throws a ServiceError (the
 * connection then ends): nothing after it can be framed reliably.
 */
export class EventParser {
  private buffer: Buffer = Buffer.alloc(0);
  private header: Header | null = null;

  constructor(private readonly limits: FramingLimits) {}

  /** Bytes buffered toward the next event (a stalled event holds at most the limits). */
  get bufferedBytes(): number {
    return this.buffer.length;
  }

  push(chunk: Buffer): WyomingEvent[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const events: WyomingEvent[] = [];
    for (;;) {
      if (!this.header) {
        const end = this.buffer.indexOf(NEWLINE);
        if (end < 0 || end + 1 > this.limits.maxLineBytes) {
          if (end >= 0 || this.buffer.length >= this.limits.maxLineBytes) {
            throw new PayloadTooLargeError(
              `A header line is longer than ${this.limits.maxLineBytes} bytes; large event data belongs in the data block (data_length).`,
            );
          }
          return events;
        }
        this.header = this.parseHeader(this.buffer.subarray(0, end));
        this.buffer = this.buffer.subarray(end + 1);
      }
      const { dataLength, payloadLength } = this.header;
      if (this.buffer.length < dataLength + payloadLength) return events;
      const data =
        dataLength > 0 ? { ...this.header.data, ...parseObject(this.buffer.subarray(0, dataLength), 'The data block') } : this.header.data;
      // A copy, so the event does not keep the whole receive buffer alive.
      const payload = payloadLength > 0 ? Buffer.from(this.buffer.subarray(dataLength, dataLength + payloadLength)) : null;
      events.push({ type: this.header.type, data, payload });
      this.buffer = this.buffer.subarray(dataLength + payloadLength);
      this.header = null;
    }
  }

  private parseHeader(line: Buffer): Header {
    const header = parseObject(line, 'The header line');
    const { type, data } = header;
    if (typeof type !== 'string' || type.length === 0 || type.length > MAX_TYPE_CHARS) {
      throw new InvalidRequestError(`The header line needs a 'type' string of 1 to ${MAX_TYPE_CHARS} characters.`);
    }
    if (data !== undefined && data !== null && !isObject(data)) throw new InvalidRequestError("'data' must be a JSON object.");
    return {
      type,
      data: isObject(data) ? data : {},
      dataLength: this.length(header.data_length, 'data_length', this.limits.maxDataBytes),
      payloadLength: this.length(header.payload_length, 'payload_length', this.limits.maxPayloadBytes),
    };
  }

  private length(value: unknown, field: string, max: number): number {
    if (value === undefined || value === null) return 0;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw new InvalidRequestError(`'${field}' must be a non-negative integer.`);
    }
    if (value > max) throw new PayloadTooLargeError(`'${field}' is ${value} bytes; this server accepts at most ${max}.`);
    return value;
  }
}

function parseObject(bytes: Buffer, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseCallerJson(bytes.toString('utf8'));
  } catch {
    throw new InvalidJsonError(`${what} is not valid JSON.`);
  }
  if (!isObject(value)) throw new InvalidJsonError(`${what} must be a JSON object.`);
  return value;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
