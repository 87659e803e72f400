import { expect } from 'chai';
import { InvalidJsonError, InvalidRequestError, PayloadTooLargeError } from '@svc/core';
import { EventParser } from '../src/framing/event-parser.js';
import { encodeEvent } from '../src/framing/event-encoder.js';

const LIMITS = { maxLineBytes: 1024, maxDataBytes: 4096, maxPayloadBytes: 8192 };

/** Framing written by hand from the protocol description (header line, data block, payload). */
function wire(header: Record<string, unknown>, data?: string, payload?: Buffer): Buffer {
  return Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), Buffer.from(data ?? ''), payload ?? Buffer.alloc(0)]);
}

describe('EventParser (Wyoming framing)', () => {
  it('merges the data block over the header data and cuts the payload, whatever the chunking (every split point)', () => {
    const payload = Buffer.from([1, 2, 3, 4, 5, 6]);
    const bytes = Buffer.concat([
      wire(
        { type: 'audio-chunk', data: { rate: 16000, width: 1 }, data_length: 24, payload_length: 6, version: '1.9.0' },
        JSON.stringify({ width: 2, channels: 1 }).padEnd(24),
        payload,
      ),
      wire({ type: 'describe' }),
    ]);
    for (let split = 0; split <= bytes.length; split++) {
      const parser = new EventParser(LIMITS);
      const events = [...parser.push(bytes.subarray(0, split)), ...parser.push(bytes.subarray(split))];
      expect(events, `split at ${split}`).to.deep.equal([
        { type: 'audio-chunk', data: { rate: 16000, width: 2, channels: 1 }, payload },
        { type: 'describe', data: {}, payload: null },
      ]);
    }
  });

  it('reads what encodeEvent writes (all data in the data block, the header line small)', () => {
    const big = { voices: Array.from({ length: 500 }, (_, i) => ({ name: `voice-${i}`, languages: ['en-US'] })) };
    const bytes = encodeEvent('info', big, null);
    const headerLine = bytes.subarray(0, bytes.indexOf(0x0a)).toString();
    expect(headerLine.length).to.be.below(100);
    const [event] = new EventParser({ ...LIMITS, maxDataBytes: 1 << 20 }).push(bytes);
    expect(event).to.deep.equal({ type: 'info', data: big, payload: null });
  });

  it('refuses a declared payload or data block over the limit as soon as the header line is in', () => {
    const parser = new EventParser(LIMITS);
    expect(() => parser.push(Buffer.from(JSON.stringify({ type: 'audio-chunk', payload_length: 2 * 1024 ** 3 }) + '\n'))).to.throw(
      PayloadTooLargeError,
      /payload_length/,
    );
    expect(() => new EventParser(LIMITS).push(Buffer.from(JSON.stringify({ type: 'info', data_length: 4097 }) + '\n'))).to.throw(
      PayloadTooLargeError,
      /data_length/,
    );
  });

  it('refuses a header line past its limit before the newline arrives', () => {
    const parser = new EventParser(LIMITS);
    expect(parser.push(Buffer.from('{"type": "synthesize", "data": {"text": "' + 'a'.repeat(900)))).to.deep.equal([]);
    expect(() => parser.push(Buffer.from('a'.repeat(200)))).to.throw(PayloadTooLargeError, /header line/);
  });

  it('refuses what is not a framed event', () => {
    const bad = (line: string) => () => new EventParser(LIMITS).push(Buffer.from(line + '\n'));
    expect(bad('not json')).to.throw(InvalidJsonError);
    expect(bad('[1, 2]')).to.throw(InvalidJsonError);
    expect(bad('{"data": {}}')).to.throw(InvalidRequestError, /type/);
    expect(bad('{"type": "x", "data": [1]}')).to.throw(InvalidRequestError, /data/);
    expect(bad('{"type": "x", "payload_length": -1}')).to.throw(InvalidRequestError, /payload_length/);
    expect(bad('{"type": "x", "payload_length": 1.5}')).to.throw(InvalidRequestError, /payload_length/);
    expect(() => new EventParser(LIMITS).push(wire({ type: 'x', data_length: 3 }, 'abc'))).to.throw(InvalidJsonError, /data block/);
  });
});
