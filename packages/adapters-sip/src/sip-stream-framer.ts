import { SipParseError } from './sip-message.js';

/**
 * Cuts a SIP byte stream (TCP, RFC 3261 section 18.3) into messages: headers up to the empty line,
 * then exactly Content-Length bytes of body (required on a stream). Keep-alive CRLFs between
 * messages are skipped (RFC 5626). Nothing past `maxMessageBytes` is buffered: a peer that sends a
 * longer message, or headers that never end, gets a SipParseError (its connection is closed).
 */
export class SipStreamFramer {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(private readonly maxMessageBytes: number) {}

  /** Adds bytes; returns the whole messages they complete. */
  push(chunk: Buffer): Buffer[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const out: Buffer[] = [];
    for (;;) {
      let start = 0;
      while (start < this.buffered.length && (this.buffered[start] === 0x0d || this.buffered[start] === 0x0a)) start++;
      if (start > 0) this.buffered = this.buffered.subarray(start);
      const end = this.buffered.indexOf('\r\n\r\n');
      if (end < 0) {
        if (this.buffered.length > this.maxMessageBytes) throw new SipParseError(`headers longer than ${this.maxMessageBytes} bytes`);
        return out;
      }
      const head = this.buffered.subarray(0, end).toString('latin1');
      const m = /^(?:content-length|l)[ \t]*:[ \t]*(\d{1,6})[ \t]*$/im.exec(head);
      if (!m) throw new SipParseError('a message on a stream without Content-Length');
      const total = end + 4 + Number(m[1]);
      if (total > this.maxMessageBytes) throw new SipParseError(`message of ${total} bytes is over the limit of ${this.maxMessageBytes}`);
      if (this.buffered.length < total) return out;
      out.push(Buffer.from(this.buffered.subarray(0, total)));
      this.buffered = this.buffered.subarray(total);
    }
  }
}
