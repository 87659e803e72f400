/**
 * RFC 4733 telephone-events (DTMF sent as RTP, not as tones): each key press is one event, sent as
 * several packets sharing the RTP timestamp of its start, the duration growing, and the last one
 * (the end bit set) repeated three times against loss. A digit is reported once, when its end
 * arrives, or when the next event starts and the end was lost. Packets are 4 bytes per event;
 * anything shorter, or an event that is not a keypad key (flash, tones), is ignored.
 */

/** RFC 4733 section 3.2: events 0-15 are the keypad. */
const KEYPAD = '0123456789*#ABCD';
/** Timestamps of recent events remembered to drop the repeated end packets (and late copies). */
const REMEMBERED_EVENTS = 16;

export interface TelephoneEventPacket {
  /** The key, '0'-'9', '*', '#', 'A'-'D'; null for events that are not keys. */
  key: string | null;
  end: boolean;
  /** In units of the RTP clock (8000 Hz for telephone-event/8000). */
  duration: number;
}

/** Reads one telephone-event payload; null when it is too short to be one. */
export function parseTelephoneEvent(payload: Uint8Array): TelephoneEventPacket | null {
  if (payload.length < 4) return null;
  const event = payload[0]!;
  return {
    key: event < KEYPAD.length ? KEYPAD[event]! : null,
    end: (payload[1]! & 0x80) !== 0,
    duration: (payload[2]! << 8) | payload[3]!,
  };
}

export interface Keypress {
  key: string;
  /** How long the key was held, in ms (0 when its end was lost). */
  durationMs: number;
}

/** One call's incoming telephone-events turned into key presses, each reported once, in order. */
export class TelephoneEventReceiver {
  private current: { timestamp: number; key: string; duration: number } | null = null;
  private readonly reported: number[] = [];

  constructor(private readonly clockRate: number) {}

  /** A telephone-event RTP packet (its timestamp and payload); returns the key presses now complete. */
  push(timestamp: number, payload: Uint8Array): Keypress[] {
    const packet = parseTelephoneEvent(payload);
    if (!packet || packet.key === null || this.reported.includes(timestamp)) return [];
    const out: Keypress[] = [];
    if (this.current && this.current.timestamp !== timestamp) {
      // a new event began and the previous one's end never came: it was a key press all the same
      out.push(this.report(this.current.timestamp, this.current.key, 0));
    }
    if (packet.end) {
      this.current = null;
      out.push(this.report(timestamp, packet.key, packet.duration));
    } else this.current = { timestamp, key: packet.key, duration: packet.duration };
    return out;
  }

  private report(timestamp: number, key: string, duration: number): Keypress {
    this.reported.push(timestamp);
    if (this.reported.length > REMEMBERED_EVENTS) this.reported.shift();
    if (this.current?.timestamp === timestamp) this.current = null;
    return { key, durationMs: Math.round((duration * 1000) / this.clockRate) };
  }
}
