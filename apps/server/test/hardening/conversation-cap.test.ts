import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import { openSession, userText, sleep, type RealtimeClient } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';

/** The next event that matches, skipping the others. */
async function waitFor(client: RealtimeClient, match: (e: any) => boolean): Promise<any> {
  for (;;) {
    const e = await client.next(15_000);
    if (match(e)) return e;
  }
}

/** global.gc without restarting mocha with --expose-gc: the flag, then a fresh context exposes it. */
function collectGarbage(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Issue 7, "also seen": one session held 400 items of 256 KiB and kept the memory after it closed. */
describe('hardening: realtime conversations are capped, and a closed one is freed (real server)', function () {
  this.timeout(120_000);

  it('past SVC_REALTIME_MAX_CONVERSATION_ITEMS an item.create gets an error event conversation_full; deleting makes room', async () => {
    const s = await startRealtimeServer({ env: { SVC_REALTIME_MAX_CONVERSATION_ITEMS: '3' } });
    try {
      const { client } = await openSession(s.wsUrl, s.apiKey);
      for (let i = 0; i < 3; i++) {
        client.send({ type: 'conversation.item.create', item: userText(`item ${i}`, `item_${i}`) });
        expect((await waitFor(client, (e) => e.type === 'conversation.item.added' || e.type === 'error')).type).to.equal(
          'conversation.item.added',
        );
      }
      client.send({ type: 'conversation.item.create', item: userText('one too many', 'item_3') });
      const error = await waitFor(client, (e) => e.type === 'error');
      expect(error.error.code).to.equal('conversation_full');
      client.send({ type: 'conversation.item.delete', item_id: 'item_0' });
      await waitFor(client, (e) => e.type === 'conversation.item.deleted');
      client.send({ type: 'conversation.item.create', item: userText('fits again', 'item_4') });
      const added = await waitFor(client, (e) => e.type === 'conversation.item.added' || e.type === 'error');
      expect(added.type).to.equal('conversation.item.added');
      await client.close();
    } finally {
      await s.close();
    }
  });

  it('past SVC_REALTIME_MAX_CONVERSATION_BYTES: conversation_full; a closed 24 MiB session gives its memory back', async () => {
    const gc = collectGarbage();
    // 60 MiB sent as fast as possible is a flood by the default inbound budget (1 MiB/s): this test is about
    // what the conversation holds, so it lifts the byte budget.
    const s = await startRealtimeServer({
      env: {
        SVC_REALTIME_MAX_CONVERSATION_BYTES: String(24 * 1024 * 1024),
        SVC_REALTIME_MAX_FRAME_BYTES: String(4 * 1024 * 1024),
        SVC_REALTIME_INBOUND_BYTES_PER_SEC: String(1024 * 1024 * 1024),
      },
    });
    try {
      gc();
      const baseline = process.memoryUsage().heapUsed;
      // In a function of its own: the test client keeps every event it received (the items too),
      // and nothing of it may stay reachable from this frame when the heap is measured.
      const held = await (async () => {
        const { client } = await openSession(s.wsUrl, s.apiKey);
        // 1 MB of text per item, in parts under the 256 KiB limit of one text part.
        const part = { type: 'input_text', text: 'x'.repeat(250_000) };
        const bigItem = (id: string) => ({ type: 'message', role: 'user', id, content: [part, part, part, part] });
        let full: any = null;
        for (let i = 0; i < 60 && !full; i++) {
          client.send({ type: 'conversation.item.create', item: bigItem(`big_${i}`) });
          const e = await waitFor(client, (ev) => ev.type === 'conversation.item.added' || ev.type === 'error');
          if (e.type === 'error') full = e;
        }
        expect(full?.error?.code, 'no conversation_full within 60 MiB').to.equal('conversation_full');
        gc();
        const held = process.memoryUsage().heapUsed - baseline;
        expect(held, 'the session holds its items while open').to.be.greaterThan(16 * 1024 * 1024);
        await client.close();
        return held;
      })();
      await sleep(500);
      gc();
      await sleep(100);
      gc();
      const after = process.memoryUsage().heapUsed - baseline;
      expect(
        after,
        `heap above baseline after close: ${(after / 1048576).toFixed(1)} MiB (held ${(held / 1048576).toFixed(1)} MiB)`,
      ).to.be.lessThan(held / 4);
    } finally {
      await s.close();
    }
  });
});
