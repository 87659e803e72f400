/**
 * A small reorder buffer for the caller's RTP: packets are released in sequence order once `depth`
 * are held (or at once when they arrive in order), late duplicates and packets older than the last
 * released one are dropped. A lost packet is skipped when the buffer is full, so audio keeps
 * flowing (the recognizer hears a 20 ms gap, not a stall). Sequence numbers wrap at 2^16; a packet
 * far behind (RFC 3550's 100) starts the sequence again.
 */
/** RFC 3550 A.1's bound: a packet further behind than this is a restarted sequence, not a late one. */
const MAX_MISORDER = 100;

export class JitterBuffer<T> {
  private readonly held = new Map<number, T>();
  private next: number | null = null;

  constructor(private readonly depth: number) {}

  /** Adds a packet; returns those now ready, in order. */
  push(sequence: number, item: T): T[] {
    if (this.next === null) this.next = sequence;
    const behind = (this.next - sequence) & 0xffff;
    if (behind > 0 && behind < 0x8000) {
      // a little behind the playout point: late or a duplicate
      if (behind <= MAX_MISORDER) return [];
      // far behind: the sender started its sequence again (a PBX's new stream after a transfer or a
      // bridge change); dropping it as "late" would leave the caller unheard for up to 32,768 packets
      this.reset();
      this.next = sequence;
    }
    if (this.held.has(sequence)) return [];
    this.held.set(sequence, item);
    const out: T[] = [];
    for (;;) {
      const ready = this.held.get(this.next);
      if (ready !== undefined) {
        this.held.delete(this.next);
        out.push(ready);
        this.next = (this.next + 1) & 0xffff;
        continue;
      }
      if (this.held.size < this.depth) return out;
      // full: the missing one is lost, play on from the oldest held
      this.next = this.oldest();
    }
  }

  /** Forgets everything held and the playout point: the next packet starts a new stream. */
  reset(): void {
    this.held.clear();
    this.next = null;
  }

  private oldest(): number {
    let best = -1;
    let bestDistance = Infinity;
    for (const seq of this.held.keys()) {
      const distance = (seq - this.next!) & 0xffff;
      if (distance < bestDistance) {
        bestDistance = distance;
        best = seq;
      }
    }
    return best;
  }
}
