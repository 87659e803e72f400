import { WebRtcTestClient } from './webrtc-client.js';

/**
 * A WebRTC caller that vanishes: run as its own process (`node vanishing-webrtc-peer.js BASE KEY`),
 * it places a call, prints `connected <call id>` once the session is created, and then waits to be
 * killed with SIGKILL, which sends nothing (no DTLS close, no hang-up), like a laptop lid closing.
 */
const [baseUrl, key] = process.argv.slice(2);
const client = new WebRtcTestClient();
const res = await client.call(baseUrl!, key!);
if (res.status !== 201) {
  console.log(`refused ${res.status} ${res.body}`);
  process.exit(1);
}
await client.waitForType('session.created');
console.log(`connected ${client.callId}`);
setInterval(() => undefined, 1000);
