import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { parseTelephoneEvent, TelephoneEventReceiver } from '../src/telephone-event.js';

/** An RFC 4733 payload: event, end bit, volume 10, duration. */
const event = (key: number, end: boolean, duration: number) => Buffer.from([key, (end ? 0x80 : 0) | 10, duration >> 8, duration & 0xff]);

describe('RFC 4733 telephone-events', () => {
  it('reads the key, the end bit and the duration; a payload under 4 bytes is not an event', () => {
    expect(parseTelephoneEvent(event(5, false, 400))).to.deep.equal({ key: '5', end: false, duration: 400 });
    expect(parseTelephoneEvent(event(10, true, 800))).to.deep.equal({ key: '*', end: true, duration: 800 });
    expect(parseTelephoneEvent(event(11, true, 0))?.key).to.equal('#');
    expect(parseTelephoneEvent(event(15, true, 0))?.key).to.equal('D');
    expect(parseTelephoneEvent(event(16, true, 0))?.key, 'flash is not a key').to.equal(null);
    expect(parseTelephoneEvent(Buffer.from([1, 2, 3]))).to.equal(null);
    expect(parseTelephoneEvent(Buffer.alloc(0))).to.equal(null);
  });

  it('reports each press once at its end (the three repeated end packets are one press), with its duration', () => {
    const keys = new TelephoneEventReceiver(8000);
    const presses = [
      ...keys.push(1000, event(1, false, 160)),
      ...keys.push(1000, event(1, false, 320)),
      ...keys.push(1000, event(1, true, 800)),
      ...keys.push(1000, event(1, true, 800)),
      ...keys.push(1000, event(1, true, 800)),
      ...keys.push(5000, event(2, true, 400)),
      ...keys.push(5000, event(2, true, 400)),
    ];
    expect(presses).to.deep.equal([
      { key: '1', durationMs: 100 },
      { key: '2', durationMs: 50 },
    ]);
  });

  it('a press whose end packets were all lost is reported when the next one starts; the same key twice is two presses', () => {
    const keys = new TelephoneEventReceiver(48000);
    expect(keys.push(100, event(7, false, 960))).to.deep.equal([]);
    expect(keys.push(9000, event(7, false, 960))).to.deep.equal([{ key: '7', durationMs: 0 }]);
    expect(keys.push(9000, event(7, true, 4800))).to.deep.equal([{ key: '7', durationMs: 100 }]);
    // a late copy of the first press's packets changes nothing
    expect(keys.push(100, event(7, true, 960))).to.deep.equal([]);
  });

  it('random and malformed payloads never throw; non-key events are ignored', () => {
    const keys = new TelephoneEventReceiver(8000);
    for (let i = 0; i < 2000; i++) {
      const presses = keys.push(i, randomBytes(i % 9));
      for (const p of presses) expect('0123456789*#ABCD').to.contain(p.key);
    }
    expect(keys.push(77777, event(20, true, 100))).to.deep.equal([]);
  });
});
