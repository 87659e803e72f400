import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { RealtimeClient, takeStrayViolations, takeViolations } from '../helpers/realtime-client.js';

// The test client's protocol check: a violation is charged to the test that opened the client, so
// a session an earlier test (or another file in the same mocha process) left behind cannot fail
// an unrelated test, and is still reported, naming its test.
describe('the realtime test client: protocol violations charged to the test that opened the client', () => {
  let server: WebSocketServer;
  let wsBase: string;
  /** The server side of each connection, in order. */
  const peers: WebSocket[] = [];
  let leftOpen: RealtimeClient;
  let closed: RealtimeClient;

  before(async () => {
    server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    server.on('connection', (socket) => peers.push(socket));
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    wsBase = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const peer of peers) peer.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  afterEach(() => expect(takeViolations()).to.deep.equal([]));

  const event = (type: string, extra: Record<string, unknown> = {}) => JSON.stringify({ type, ...extra });

  it('a test opens two sessions: it closes one, leaves the other open, and sees no violation', async () => {
    leftOpen = RealtimeClient.connect(wsBase, { query: '?left=open' });
    await leftOpen.opened;
    closed = RealtimeClient.connect(wsBase, { query: '?closed=by-its-test' });
    await closed.opened;
    peers[0]!.send(event('input_audio_buffer.cleared', { event_id: 'event_1' }));
    expect((await leftOpen.next()).type).to.equal('input_audio_buffer.cleared');
    await closed.close();
  });

  it("a later, unrelated test is not failed by the earlier sessions' late violations, which stay attributed to their test", async () => {
    // the session left open goes on after its test: an event the spec says is never sent
    peers[0]!.send(event('rate_limits.updated', { event_id: 'event_2', rate_limits: [] }));
    await leftOpen.next();
    // a frame that was in flight when its test closed the other one (delivered late, as ws can)
    closed.ws.emit('message', Buffer.from(event('input_audio_buffer.cleared')), false);
    expect(takeViolations(), "this test's check").to.deep.equal([]);
    // neither is lost: the end of the run reports them, with the client and the test that opened it
    const stray = takeStrayViolations();
    const file = '(realtime-client-violations.test.js)';
    const opened = `opened in "a test opens two sessions: it closes one, leaves the other open, and sees no violation" ${file}`;
    const arrived = `arrived during "a later, unrelated test is not failed by the earlier sessions' late violations, which stay attributed to their test" ${file}`;
    expect(stray).to.have.members([
      `never-emitted event rate_limits.updated [client ${leftOpen.label}, ${opened}, ${arrived}]`,
      `GA schema: rate_limits.updated: not a GA server event nor a documented extension [client ${leftOpen.label}, ${opened}, ${arrived}]`,
      `input_audio_buffer.cleared without string event_id [client ${closed.label}, ${opened}, ${arrived}, after the test closed it]`,
      `GA schema: input_audio_buffer.cleared.event_id must be a string [client ${closed.label}, ${opened}, ${arrived}, after the test closed it]`,
    ]);
    expect(leftOpen.label).to.match(/^#\d+ \/v1\/realtime\?left=open$/);
    expect(leftOpen.violations).to.have.length(2);
    expect(closed.violations).to.have.length(2);
    await leftOpen.close();
  });

  it("a violation on the test's own session is still charged to it, closed or not", async () => {
    const own = RealtimeClient.connect(wsBase, { query: '?own' });
    await own.opened;
    peers.at(-1)!.send(event('session.created', { session: {} }));
    await own.next();
    await own.close();
    own.ws.emit('message', Buffer.from(event('output_audio_buffer.started', { event_id: 'event_3' })), false);
    const opened = `opened in "a violation on the test's own session is still charged to it, closed or not" (realtime-client-violations.test.js)`;
    expect(takeViolations()).to.have.members([
      `session.created without string event_id [client ${own.label}, ${opened}]`,
      `GA schema: session.created.event_id must be a string [client ${own.label}, ${opened}]`,
      `GA schema: output_audio_buffer.started: not a GA server event nor a documented extension [client ${own.label}, ${opened}, after the test closed it]`,
      `never-emitted event output_audio_buffer.started [client ${own.label}, ${opened}, after the test closed it]`,
    ]);
    expect(takeStrayViolations()).to.deep.equal([]);
  });
});
