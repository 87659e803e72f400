import { resolve } from 'node:path';
import { loadConfig } from './config.js';
import { startServer } from './server.js';
import { REALTIME_TOKENS, SHARED_TOKENS } from '@svc/core';
import { SERVER_TOKENS } from './tokens.js';
import { stopOnSignals } from './runtime/graceful-shutdown.js';
import { servesApi } from './runtime/process-role.js';

/** `npm start`: runs the service on the embedded engines and tells a newcomer how to call it. */
async function main(): Promise<void> {
  const config = loadConfig();
  const server = await startServer(config);
  const logger = server.services.get(SHARED_TOKENS.Logger);
  if (!servesApi(config)) {
    logger.info({ url: server.url, role: 'worker' }, 'listening');
    process.stdout.write(`svc worker is rendering video jobs (health: ${server.url}/readyz)\n`);
    stopOnSignals(() => server.close(), logger, config.settings.SVC_SHUTDOWN_GRACE_MS);
    return;
  }
  const keys = server.services.get(SERVER_TOKENS.ManageApiKeys);

  let firstKey: string | null = null;
  if (config.settings.SVC_BOOTSTRAP_KEY && (await keys.isEmpty())) {
    firstKey = (await keys.create('bootstrap')).secret;
  }
  const recognition = server.services.get(REALTIME_TOKENS.SpeechRecognitionStatus);
  logger.info(
    { role: config.settings.SVC_ROLE, url: server.url, ws: `${server.wsUrl}/v1/realtime`, dataDir: config.settings.SVC_DATA_DIR },
    'listening',
  );
  const lines = [
    '',
    `svc is listening on ${server.url}  (realtime: ${server.wsUrl}/v1/realtime)`,
    ...(config.settings.SVC_PLAYGROUND
      ? [`Playground: ${server.url}/playground  (paste the key there; API reference: ${server.url}/docs)`]
      : []),
    firstKey
      ? `First start: created an API key. It is shown ONCE; store it now:\n\n    ${firstKey}\n`
      : 'Authenticate with an existing key (create more with: npm run keys -- create --name NAME).',
    recognition.available
      ? `Realtime speech recognition: ${recognition.detail}.`
      : `WARNING: realtime speech recognition is ${recognition.detail}\n  Spoken turns get an error event of type transcription_unavailable (see docs/realtime.md).`,
    ...(config.settings.SVC_TURN_MODEL
      ? [
          `semantic_vad end-of-turn model: ${config.settings.SVC_TURN_MODEL} (threshold ${config.settings.SVC_TURN_MODEL_THRESHOLD}; docs/realtime.md)`,
        ]
      : []),
    ...(server.wyoming
      ? [`Wyoming (Home Assistant): tcp://${server.wyoming.server.address.host}:${server.wyoming.server.address.port}  (docs/wyoming.md)`]
      : []),
    ...(server.sip
      ? [`SIP phone calls: ${server.sip.server.address.address}:${server.sip.server.address.port} (UDP and TCP; docs/sip.md)`]
      : []),
    // With no key printed, the command reads it from $KEY, as the README's examples do. Over TLS
    // curl is given the server's own certificate: a self-signed one (docs/realtime.md makes one to
    // try TLS) is otherwise refused, and `curl -s` says nothing (exit 60).
    `Try it${firstKey ? '' : ' (export KEY=<your key> first)'}:\n    curl -s ${server.url}/v1/audio/speech${config.settings.SVC_TLS_CERT ? ` --cacert ${shellWord(resolve(config.settings.SVC_TLS_CERT))}` : ''} -H "Authorization: Bearer ${firstKey ?? '$KEY'}" \\\n      -H "Content-Type: application/json" -d '{"input":"Hello from svc!"}' -o hello.mp3`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');

  stopOnSignals(() => server.close(), logger, config.settings.SVC_SHUTDOWN_GRACE_MS);
}

/** A path as one shell word: quoted when it holds anything but the usual path characters. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

main().catch((err) => {
  process.stderr.write(`svc failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
