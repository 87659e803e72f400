import { REALTIME_MODEL, defaultSessionConfig, toSessionObject, type ClientEventType, type SERVER_EVENT_TYPES } from '@svc/core';

/**
 * What the realtime reference page says about each event. The event names and the fields a client
 * event may carry come from the engine (CLIENT_EVENT_FIELDS, SERVER_EVENT_TYPES); a test checks
 * that this catalog covers exactly those and that every client example passes the engine's own
 * parser, so the page cannot drift from what the server accepts and sends.
 */
export interface EventDoc {
  summary: string;
  example: Record<string, unknown>;
}

const IDS = { session: 'sess_3f9a1c', item: 'item_7b2e', response: 'resp_51c0', call: 'call_a9' };
const defaultSession = () => toSessionObject(defaultSessionConfig(REALTIME_MODEL), IDS.session, 1795000000);
const userItem = {
  id: IDS.item,
  object: 'realtime.item',
  type: 'message',
  status: 'completed',
  role: 'user',
  content: [{ type: 'input_text', text: 'What can you do?' }],
};
const replyItem = { id: 'item_8c3f', object: 'realtime.item', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
const responseRef = { response_id: IDS.response, item_id: 'item_8c3f', output_index: 0, content_index: 0 };

export const CLIENT_EVENT_DOCS: Record<ClientEventType, EventDoc> = {
  'session.update': {
    summary:
      'Configures the session. The first one starts it (answered by session.created); later ones merge into it (session.updated). An invalid configuration is answered by error and closes the session.',
    example: {
      type: 'session.update',
      session: {
        type: 'realtime',
        model: REALTIME_MODEL,
        instructions: 'You are a helpful voice assistant.',
        output_modalities: ['audio'],
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            turn_detection: { type: 'server_vad', silence_duration_ms: 500 },
            transcription: { model: 'svc-stt-3.1' },
          },
          output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'default' },
        },
      },
    },
  },
  'input_audio_buffer.append': {
    summary:
      'Adds base64 audio in the configured input format (at most 1,048,576 base64 characters per event). Not acknowledged; with server VAD, turns are detected in it.',
    example: { type: 'input_audio_buffer.append', audio: 'AAAAAP//AQACAP7/…' },
  },
  'input_audio_buffer.commit': {
    summary: 'Manual turns: makes the buffered audio (100 ms at least) a user item and transcribes it. Does not start a response.',
    example: { type: 'input_audio_buffer.commit' },
  },
  'input_audio_buffer.clear': {
    summary: 'Discards uncommitted audio; answered by input_audio_buffer.cleared.',
    example: { type: 'input_audio_buffer.clear' },
  },
  'conversation.item.create': {
    summary: 'Adds a message, function_call or function_call_output item (after previous_item_id, or at the end). Never starts a response.',
    example: {
      type: 'conversation.item.create',
      event_id: 'client_1',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What can you do?' }] },
    },
  },
  'conversation.item.retrieve': {
    summary: "Asks for the server's copy of an item (also one condensed by summarization).",
    example: { type: 'conversation.item.retrieve', item_id: IDS.item },
  },
  'conversation.item.truncate': {
    summary: 'Cuts a spoken assistant item at the playback position, so the conversation holds only what the user heard.',
    example: { type: 'conversation.item.truncate', item_id: 'item_8c3f', content_index: 0, audio_end_ms: 1200 },
  },
  'conversation.item.delete': {
    summary: 'Removes an item from the conversation.',
    example: { type: 'conversation.item.delete', item_id: IDS.item },
  },
  'response.create': {
    summary:
      'Asks for a response to the conversation; `response` may override instructions, temperature, max_output_tokens, output_modalities, tools and add input items for this response only.',
    example: { type: 'response.create', response: { instructions: 'Answer in one sentence.', metadata: { topic: 'demo' } } },
  },
  'response.cancel': {
    summary: 'Stops the response in progress; it ends with response.done status cancelled.',
    example: { type: 'response.cancel', response_id: IDS.response },
  },
  'output_audio_buffer.clear': {
    summary:
      'WebRTC calls only: cuts off the reply audio the call is playing (the response in progress is cancelled); answered by output_audio_buffer.cleared. Over the WebSocket it is an unknown event type.',
    example: { type: 'output_audio_buffer.clear' },
  },
};

type ServerEventType = (typeof SERVER_EVENT_TYPES)[number];

export const SERVER_EVENT_DOCS: Record<ServerEventType, EventDoc> = {
  'session.created': {
    summary: 'Answers the first session.update with the full effective session (defaults shown here). Nothing is sent before it.',
    example: { type: 'session.created', event_id: 'event_01', session: defaultSession() },
  },
  'session.updated': {
    summary: 'Answers a later session.update with the full effective session.',
    example: { type: 'session.updated', event_id: 'event_02', session: { ...defaultSession(), instructions: 'Be brief.' } },
  },
  error: {
    summary:
      'A client event was refused, or something failed. The session continues unless the configuration was invalid or quota was refused.',
    example: {
      type: 'error',
      event_id: 'event_03',
      error: {
        type: 'invalid_request_error',
        code: 'unknown_parameter',
        message: "Unknown parameter: 'session.foo'.",
        param: 'session.foo',
        event_id: 'client_1',
      },
    },
  },
  'input_audio_buffer.committed': {
    summary: 'The buffered audio became a user item (after a commit, or when server VAD ends a turn).',
    example: { type: 'input_audio_buffer.committed', event_id: 'event_04', previous_item_id: null, item_id: IDS.item },
  },
  'input_audio_buffer.cleared': {
    summary: 'Answers input_audio_buffer.clear.',
    example: { type: 'input_audio_buffer.cleared', event_id: 'event_05' },
  },
  'input_audio_buffer.speech_started': {
    summary: 'Server VAD heard speech start; a response in progress is interrupted (barge-in).',
    example: { type: 'input_audio_buffer.speech_started', event_id: 'event_06', audio_start_ms: 720, item_id: IDS.item },
  },
  'input_audio_buffer.speech_stopped': {
    summary: 'Server VAD heard the turn end (after silence_duration_ms of silence).',
    example: { type: 'input_audio_buffer.speech_stopped', event_id: 'event_07', audio_end_ms: 3480, item_id: IDS.item },
  },
  'conversation.item.added': {
    summary: 'An item entered the conversation (created by the client, a user turn, or a response output).',
    example: { type: 'conversation.item.added', event_id: 'event_08', previous_item_id: null, item: userItem },
  },
  'conversation.item.retrieved': {
    summary: 'Answers conversation.item.retrieve.',
    example: { type: 'conversation.item.retrieved', event_id: 'event_09', item: userItem },
  },
  'conversation.item.truncated': {
    summary: 'Answers conversation.item.truncate.',
    example: { type: 'conversation.item.truncated', event_id: 'event_10', item_id: 'item_8c3f', content_index: 0, audio_end_ms: 1200 },
  },
  'conversation.item.deleted': {
    summary: 'Answers conversation.item.delete.',
    example: { type: 'conversation.item.deleted', event_id: 'event_11', item_id: IDS.item },
  },
  'conversation.item.input_audio_transcription.completed': {
    summary: 'The transcript of a user audio item (only when audio.input.transcription.model is set).',
    example: {
      type: 'conversation.item.input_audio_transcription.completed',
      event_id: 'event_12',
      item_id: IDS.item,
      content_index: 0,
      transcript: 'what can you do',
      usage: { type: 'duration', seconds: 2.8 },
    },
  },
  'response.created': {
    summary: 'A response started; carries metadata when response.create supplied it.',
    example: {
      type: 'response.created',
      event_id: 'event_13',
      response: { id: IDS.response, object: 'realtime.response', status: 'in_progress', output: [], metadata: { topic: 'demo' } },
    },
  },
  'response.output_item.added': {
    summary: 'The response opened an output item (a message or a function_call).',
    example: { type: 'response.output_item.added', event_id: 'event_14', response_id: IDS.response, output_index: 0, item: replyItem },
  },
  'response.content_part.added': {
    summary: 'A content part opened: {type: audio, transcript: ""} in audio sessions, {type: text, text: ""} in text sessions.',
    example: { type: 'response.content_part.added', event_id: 'event_15', ...responseRef, part: { type: 'audio', transcript: '' } },
  },
  'response.output_text.delta': {
    summary: 'Text of a text reply, token by token.',
    example: { type: 'response.output_text.delta', event_id: 'event_16', ...responseRef, delta: 'I can ' },
  },
  'response.output_text.done': {
    summary: 'The whole text of a text reply.',
    example: { type: 'response.output_text.done', event_id: 'event_17', ...responseRef, text: 'I can answer questions.' },
  },
  'response.output_audio_transcript.delta': {
    summary: 'Transcript of a spoken reply, token by token (ahead of its audio).',
    example: { type: 'response.output_audio_transcript.delta', event_id: 'event_18', ...responseRef, delta: 'I can ' },
  },
  'response.output_audio_transcript.done': {
    summary: 'The whole transcript of a spoken reply.',
    example: { type: 'response.output_audio_transcript.done', event_id: 'event_19', ...responseRef, transcript: 'I can answer questions.' },
  },
  'response.output_audio.delta': {
    summary: 'A chunk of the spoken reply: base64 audio in audio.output.format (one opus packet per event for audio/opus).',
    example: { type: 'response.output_audio.delta', event_id: 'event_20', ...responseRef, delta: 'AAAAAP//AQACAP7/…' },
  },
  'response.output_audio.done': {
    summary: 'The spoken reply has no more audio.',
    example: { type: 'response.output_audio.done', event_id: 'event_21', ...responseRef },
  },
  'response.content_part.done': {
    summary: 'A content part is complete.',
    example: {
      type: 'response.content_part.done',
      event_id: 'event_22',
      ...responseRef,
      part: { type: 'audio', transcript: 'I can answer questions.' },
    },
  },
  'response.output_item.done': {
    summary: 'An output item is complete (status completed, or incomplete when cancelled).',
    example: {
      type: 'response.output_item.done',
      event_id: 'event_23',
      response_id: IDS.response,
      output_index: 0,
      item: { ...replyItem, status: 'completed' },
    },
  },
  'response.function_call_arguments.delta': {
    summary: 'Arguments of a tool call, as they are generated.',
    example: {
      type: 'response.function_call_arguments.delta',
      event_id: 'event_24',
      response_id: IDS.response,
      item_id: 'item_fc1',
      output_index: 0,
      call_id: IDS.call,
      delta: '{"location":',
    },
  },
  'response.function_call_arguments.done': {
    summary: 'A complete tool call: run it, send a function_call_output item, then response.create.',
    example: {
      type: 'response.function_call_arguments.done',
      event_id: 'event_25',
      response_id: IDS.response,
      item_id: 'item_fc1',
      output_index: 0,
      call_id: IDS.call,
      name: 'get_weather',
      arguments: '{"location":"Paris"}',
    },
  },
  'response.done': {
    summary: 'The response ended: status completed or cancelled; usage and status_details are null.',
    example: {
      type: 'response.done',
      event_id: 'event_26',
      response: {
        id: IDS.response,
        object: 'realtime.response',
        status: 'completed',
        status_details: null,
        usage: null,
        metadata: null,
        output: [],
      },
    },
  },
  'response.output_audio_transcript.length': {
    summary: 'Extension: after each spoken sentence, the sentence and the audio length up to its end (for truncation and captions).',
    example: {
      type: 'response.output_audio_transcript.length',
      event_id: 'event_27',
      ...responseRef,
      delta: 'I can answer questions.',
      length_ms: 1640,
    },
  },
  'conversation.context.summarized': {
    summary: 'Extension: older items were condensed into a summary item (truncation: auto).',
    example: {
      type: 'conversation.context.summarized',
      event_id: 'event_28',
      summary_item_id: 'item_sum1',
      summarized_item_ids: ['item_01', 'item_02'],
    },
  },
  'session.idle_timeout': {
    summary: 'Extension: 5 minutes without user speech; the socket closes with 1000.',
    example: { type: 'session.idle_timeout', event_id: 'event_29', seconds_idle: 300 },
  },
  'output_audio_buffer.started': {
    summary:
      "WebRTC calls only: the reply audio of a response started playing on the call's audio track (instead of response.output_audio.delta events).",
    example: { type: 'output_audio_buffer.started', event_id: 'event_31', response_id: IDS.response },
  },
  'output_audio_buffer.stopped': {
    summary:
      "WebRTC calls only: the track has played all of the response's audio (after response.done, which leaves up to the audio lead earlier).",
    example: { type: 'output_audio_buffer.stopped', event_id: 'event_32', response_id: IDS.response },
  },
  'output_audio_buffer.cleared': {
    summary:
      'WebRTC calls only: the reply audio was cut off (barge-in, response.cancel, output_audio_buffer.clear); what was played stays in the conversation.',
    example: { type: 'output_audio_buffer.cleared', event_id: 'event_33', response_id: IDS.response },
  },
  'session.max_duration_reached': {
    summary: 'Extension: the session reached its wall-clock cap; the socket closes with 1000.',
    example: { type: 'session.max_duration_reached', event_id: 'event_30', max_duration_sec: 1800 },
  },
  'response.output_audio.paused': {
    summary:
      'Extension (turn_detection.interruption_events: true): the user spoke over the reply; its audio stopped while the speech is judged. Pause your player.',
    example: { type: 'response.output_audio.paused', event_id: 'event_32', response_id: IDS.response },
  },
  'response.output_audio.resumed': {
    summary:
      'Extension (turn_detection.interruption_events: true): the speech was not an interruption (a backchannel, a cough); the reply goes on from where it paused. Resume your player. An interruption ends the response cancelled instead.',
    example: { type: 'response.output_audio.resumed', event_id: 'event_33', response_id: IDS.response, paused_ms: 820 },
  },
};

/**
 * Why a session ends, for each ending the WebSocket transport maps to a close code (the table of
 * codes itself belongs to the transport and is passed to the renderer). A test checks these are
 * exactly the transport's endings.
 */
export const CLOSE_ENDING_DOCS: Record<string, string> = {
  invalid_configuration: 'A rejected session.update (after its error event).',
  system_message: 'A system or developer message item (after its error event).',
  idle_timeout: '5 minutes without user speech (after session.idle_timeout).',
  max_duration: 'The session reached its wall-clock cap (after session.max_duration_reached).',
  call_ended: 'A socket joined to a phone call (`?call_id=`): the call ended (a hang-up from either side, a transfer).',
  protocol_violation: 'Not the protocol: too many events before the first session.update.',
  slow_reader: 'The client stopped reading its events.',
  inbound_rate_exceeded:
    'The client sent faster than its inbound budget (SVC_REALTIME_INBOUND_*; after an error event rate_limit_exceeded).',
  server_shutdown: 'The server is shutting down.',
  internal_error: 'The session could not be started.',
  at_capacity: 'Too many sessions (server-wide or for this key); retry later.',
  over_capacity:
    'This server cannot serve one more speaking session now (CPU, speech decoders or event loop at their limit; the reason says which); retry later or elsewhere.',
  flood_cooldown:
    "This key's (or ephemeral key's) last session sent more than its inbound budget and was closed; it may open a new one after a few seconds (the reason says how many).",
  dependency_unavailable: 'The service cannot admit sessions right now (its database or shared Redis does not answer); retry later.',
  invalid_credentials: 'Missing or invalid API key, or an unknown or expired client secret.',
  duplicate_session: 'This client secret already has an open session.',
  quota_refused: 'Quota refused (after an error event of type insufficient_quota).',
};
