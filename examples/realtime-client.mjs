// A realtime session the way a browser would open one: mint an ephemeral client secret with the
// API key (server side), then connect with the `svc-client-secret.<key>` subprotocol.
//
//   SVC_URL=http://127.0.0.1:8080 SVC_API_KEY=svc-... node examples/realtime-client.mjs "What time is it?"
//
import WebSocket from 'ws';

const base = process.env.SVC_URL ?? 'http://127.0.0.1:8080';
const apiKey = process.env.SVC_API_KEY;
const question = process.argv[2] ?? 'Hello there!';
if (!apiKey) throw new Error('Set SVC_API_KEY');

const res = await fetch(`${base}/v1/realtime/client_secrets`, {
  method: 'POST',
  headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
  body: JSON.stringify({ expires_after: { seconds: 60 } }),
});
const secret = await res.json();
if (res.status !== 200) throw new Error(`client_secrets: ${JSON.stringify(secret)}`);

const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/v1/realtime?model=svc-realtime`, ['realtime', `svc-client-secret.${secret.value}`]);
const send = (event) => ws.send(JSON.stringify(event));
ws.on('open', () => send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], instructions: 'Be brief.' } }));
ws.on('message', (data) => {
  const event = JSON.parse(data.toString());
  if (event.type === 'session.created') {
    send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: question }] } });
    send({ type: 'response.create' });
  } else if (event.type === 'response.output_text.delta') {
    process.stdout.write(event.delta);
  } else if (event.type === 'response.done') {
    process.stdout.write(`\n[response ${event.response.status}]\n`);
    ws.close();
  } else if (event.type === 'error') {
    console.error('error:', event.error);
  }
});
ws.on('close', (code) => process.exitCode = code === 1000 || code === 1005 ? 0 : 1);
