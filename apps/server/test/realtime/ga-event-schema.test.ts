import { expect } from 'chai';
import { gaSchemaViolations } from '../helpers/ga-event-schema.js';

// The checker every e2e realtime client runs on each server event (helpers/realtime-client.ts).
describe('GA realtime event schema checker', () => {
  it('accepts GA shapes, including the null usage and status_details the interface requires', () => {
    expect(
      gaSchemaViolations({
        type: 'response.done',
        event_id: 'e',
        response: {
          id: 'r',
          object: 'realtime.response',
          status: 'cancelled',
          output: [],
          usage: null,
          status_details: null,
          metadata: null,
        },
      }),
    ).to.deep.equal([]);
    const item = {
      id: 'i',
      object: 'realtime.item',
      type: 'message',
      role: 'user',
      status: 'completed',
      content: [{ type: 'input_audio', transcript: 'hi' }],
    };
    expect(gaSchemaViolations({ type: 'conversation.item.added', event_id: 'e', previous_item_id: null, item })).to.deep.equal([]);
  });

  it('rejects a null input_audio transcript (OpenAI types it as an optional string), other nulls, missing fields and unknown events', () => {
    const item = {
      id: 'i',
      object: 'realtime.item',
      type: 'message',
      role: 'user',
      status: 'completed',
      content: [{ type: 'input_audio', transcript: null }],
    };
    expect(gaSchemaViolations({ type: 'conversation.item.added', event_id: 'e', previous_item_id: null, item })).to.deep.equal([
      'conversation.item.added.item.content[0].transcript must be a string, got null',
    ]);
    const text = { ...item, content: [{ type: 'input_text', text: null }] };
    expect(gaSchemaViolations({ type: 'conversation.item.added', event_id: 'e', previous_item_id: null, item: text })).to.deep.equal([
      'conversation.item.added.item.content[0].text must be a string, got null',
    ]);
    expect(
      gaSchemaViolations({ type: 'response.output_audio.delta', event_id: 'e', response_id: 'r', item_id: 'i', output_index: 0 }),
    ).to.deep.equal(['response.output_audio.delta.content_index is missing', 'response.output_audio.delta.delta is missing']);
    expect(gaSchemaViolations({ type: 'response.audio.delta', event_id: 'e' })[0]).to.match(/not a GA server event/);
  });
});
