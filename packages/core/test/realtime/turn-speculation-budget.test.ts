import { expect } from 'chai';
import { TurnSpeculation } from '../../src/realtime/engine/turn-speculation.js';
import type { SpeculativeReply } from '../../src/realtime/response/speculative-reply.js';

/** A prepared reply as TurnSpeculation sees it: its words, and whether it was thrown away. */
function reply(transcript: string): SpeculativeReply {
  const r = { transcript, discarded: false, discard: () => (r.discarded = true) };
  return r as unknown as SpeculativeReply;
}

/** A speculation whose `prepare` refuses (returns null) while `refusing` is set, and records what it began. */
function speculation() {
  const state = { refusing: false, asked: [] as string[], begun: [] as string[] };
  const turn = new TurnSpeculation({
    enabled: true,
    prepare: (words) => {
      state.asked.push(words);
      if (state.refusing) return null;
      state.begun.push(words);
      return reply(words);
    },
  });
  return { turn, state };
}

describe('speculation: the guesses a turn may spend', () => {
  it("a pause at which nothing could be begun (a response still running) spends none of the turn's guesses", () => {
    const { turn, state } = speculation();
    state.refusing = true;
    // A pause long enough to be asked at every frame while the last reply is still running.
    for (let i = 0; i < 6; i++) turn.consider('he was not', 0, 96 + 32 * i);
    expect(state.asked).to.have.length(6);
    state.refusing = false;
    turn.consider('he was not an ill disposed young man', 0, 96);
    expect(state.begun).to.deep.equal(['he was not an ill disposed young man']);
  });

  it('three guesses for a short turn, one more per 2 s of its speech', () => {
    const words = ['one two', 'one two three', 'one two three four', 'one two three four five', 'one two three four five six'];
    const short = speculation();
    for (const w of words) short.turn.consider(w, 0, 96, 1500);
    expect(short.state.begun).to.deep.equal(words.slice(0, 3));
    const long = speculation();
    words.forEach((w, i) => long.turn.consider(w, 0, 96, 1500 + 2000 * i));
    expect(long.state.begun).to.deep.equal(words);
    // The same words at the same pause begin nothing more.
    long.turn.consider(words[4]!, 0, 128, 9500);
    expect(long.state.begun).to.have.length(5);
  });

  it('a new turn starts with the whole budget again', () => {
    const { turn, state } = speculation();
    for (const w of ['a b', 'a b c', 'a b c d', 'a b c d e']) turn.consider(w, 0, 96, 0);
    expect(state.begun).to.have.length(3);
    turn.reset();
    turn.consider('next turn', 0, 96, 0);
    expect(state.begun).to.have.length(4);
  });
});
