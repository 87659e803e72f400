import { expect } from 'chai';
import { startTextSession } from './support/session-harness.js';

describe('realtime malformed and unknown client events', () => {
  it('answers each malformed or unknown event with one error event and keeps the session', async () => {
    const h = await startTextSession();
    const cases: [unknown, string, string | null][] = [
      [null, 'invalid_event', null],
      [42, 'invalid_event', null],
      [[], 'invalid_event', null],
      [{}, 'missing_required_parameter', 'type'],
      [{ type: 7 }, 'invalid_type', 'type'],
      [{ type: 'nope.event' }, 'invalid_value', 'type'],
      [{ type: 'output_audio_buffer.clear' }, 'invalid_value', 'type'],
      [{ type: 'response.create', event_id: 5 }, 'invalid_type', 'event_id'],
      [{ type: 'input_audio_buffer.commit', extra: true }, 'unknown_parameter', 'extra'],
      [{ type: 'session.update' }, 'missing_required_parameter', 'session'],
    ];
    for (const [event, code, param] of cases.slice(0, -1)) {
      await h.send(event);
      const events = h.out.take();
      expect(
        events.map((e) => e.type),
        JSON.stringify(event),
      ).to.deep.equal(['error']);
      expect((events[0]!.error as any).code, JSON.stringify(event)).to.equal(code);
      expect((events[0]!.error as any).param, JSON.stringify(event)).to.equal(param);
    }
    expect(h.out.closed).to.equal(null);
  });

  it('echoes the client event_id in error.event_id, and generates one when omitted', async () => {
    const h = await startTextSession();
    await h.send({ type: 'bogus', event_id: 'mine' });
    await h.send({ type: 'bogus' });
    const [a, b] = h.out.take();
    expect((a!.error as any).event_id).to.equal('mine');
    expect((b!.error as any).event_id)
      .to.be.a('string')
      .and.not.equal('mine');
  });

  it('reports frames that are not JSON', async () => {
    const h = await startTextSession();
    await h.engine.rejectFrame('Invalid JSON: Unexpected token');
    expect(h.out.take()[0]!.error).to.deep.equal({
      type: 'invalid_request_error',
      code: 'invalid_json',
      message: 'Invalid JSON: Unexpected token',
      param: null,
      event_id: null,
    });
  });
});
