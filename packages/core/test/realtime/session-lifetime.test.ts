import { expect } from 'chai';
import { flush, pcmBase64 } from '../fakes/index.js';
import { createHarness, startTextSession, userText } from './support/session-harness.js';

describe('realtime session lifetime', () => {
  it('ends after 5 minutes without user speech: session.idle_timeout {seconds_idle}, then close 1000', async () => {
    const h = await startTextSession();
    h.clock.advance(299_999);
    await flush();
    expect(h.out.closed).to.equal(null);
    h.clock.advance(1);
    expect(h.out.take().map(({ event_id: _e, ...rest }) => rest)).to.deep.equal([{ type: 'session.idle_timeout', seconds_idle: 300 }]);
    expect(h.out.closed).to.deep.equal({ ending: 'idle_timeout', reason: 'session idle timeout' });
  });

  it('restarts the idle countdown on user turns (committed audio, user messages), not on other events', async () => {
    const h = await startTextSession();
    h.clock.advance(200_000);
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(200) });
    await h.send({ type: 'input_audio_buffer.commit' });
    h.clock.advance(200_000);
    await h.send({ type: 'conversation.item.create', item: userText('still here') });
    h.clock.advance(200_000);
    await h.send({ type: 'response.create' });
    h.clock.advance(99_999);
    expect(h.out.closed).to.equal(null);
    h.clock.advance(1);
    expect(h.out.last('session.idle_timeout').seconds_idle).to.equal(300);
    expect(h.out.closed?.ending).to.equal('idle_timeout');
  });

  it('closes a connection that never configured a session after the idle time, sending nothing', async () => {
    const h = createHarness();
    h.clock.advance(300_000);
    expect(h.out.events).to.deep.equal([]);
    expect(h.out.closed?.ending).to.equal('idle_timeout');
  });

  it('ends at the wall-clock cap: session.max_duration_reached {max_duration_sec}, close 1000, response stopped', async () => {
    const h = await startTextSession({ options: { maxDurationSec: 60 } });
    h.lm.holdAfter = 1;
    await h.send({ type: 'response.create' });
    h.out.take();
    h.clock.advance(60_000);
    await flush();
    expect(h.out.take().map(({ event_id: _e, ...rest }) => rest)).to.deep.equal([
      { type: 'session.max_duration_reached', max_duration_sec: 60 },
    ]);
    expect(h.out.closed).to.deep.equal({ ending: 'max_duration', reason: 'max session duration reached' });
    expect(h.lm.requests[0]!.signal.aborted).to.equal(true);
  });

  it('ignores events after the session closed and after the transport went away', async () => {
    const h = await startTextSession();
    h.engine.transportClosed();
    await h.send({ type: 'response.create' });
    h.clock.advance(600_000);
    expect(h.out.events).to.have.length(0);
    expect(h.out.closed).to.equal(null);
  });
});
