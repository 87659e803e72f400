import { API_KEY_PREFIX, applySessionUpdate, REALTIME_MODEL, REALTIME_TOKENS, SHARED_TOKENS, type Logger } from '@svc/core';
import { TokenBucketRateLimiter } from '@svc/adapters-storage';
import { CallWebhook, PhoneCallDirectory, SipServer, type IncomingCall } from '@svc/adapters-sip';
import { AddressPolicy } from '@svc/adapters-media';
import { phoneCallRoutes, sipConfigRoutes } from '@svc/adapters-http';
import { DIGEST_REALM } from '@svc/adapters-sip';
import { setting } from '../env-settings.js';
import type { Settings } from '../config.js';
import { SERVER_TOKENS } from '../tokens.js';
import { rethrowUnavailable } from '../runtime/rethrow-unavailable.js';
import { defineModule, type Attachment, type ModuleRoutes } from './module.js';
import { checkSipConfigKey, manageSipConfig, sipConfigRepository, storedSipAccounts } from './sip-accounts.js';

/** What the SIP module attaches: its UDP server. */
export interface SipAttachment extends Attachment {
  server: SipServer;
}

/** SVC_SIP_SESSION: a JSON object, the session.update `session` every call starts with. */
function sessionOf(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text || '{}');
  } catch (err) {
    throw new Error(`Invalid configuration SVC_SIP_SESSION: not JSON (${(err as Error).message}).`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('Invalid configuration SVC_SIP_SESSION: must be a JSON object (session.update\'s "session").');
  return parsed as Record<string, unknown>;
}

/** SVC_SIP_WEBHOOK_URL and its secret: both or neither; an http(s) URL; a `whsec_` secret of at least 24 bytes. */
function checkWebhook(url: string, secret: string): void {
  if (!url && !secret) return;
  if (!url)
    throw new Error('Invalid configuration SVC_SIP_WEBHOOK_SECRET: set SVC_SIP_WEBHOOK_URL too (where incoming calls are announced).');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`Invalid configuration SVC_SIP_WEBHOOK_URL: not a URL ('${url}').`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error('Invalid configuration SVC_SIP_WEBHOOK_URL: must be http or https.');
  const key = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret)?.[1];
  if (!key || Buffer.from(key, 'base64').length < 24)
    throw new Error(
      'Invalid configuration SVC_SIP_WEBHOOK_SECRET: a Standard Webhooks secret, whsec_ and at least 24 random bytes in base64 (docs/sip.md, "The webhook").',
    );
}

/**
 * The realtime.call.incoming webhook to `url` (SVC_SIP_WEBHOOK_URL, or a key's own): a call then
 * rings until the application accepts or rejects it, or is refused once every delivery failed.
 */
function webhookOf(s: Settings, logger: Logger, url: string, secret: string): (call: IncomingCall, gone: AbortSignal) => Promise<void> {
  const webhook = new CallWebhook({
    url,
    secret,
    addressPolicy: new AddressPolicy(s.SVC_SIP_WEBHOOK_ALLOWED_HOSTS),
    attemptTimeoutMs: s.SVC_SIP_WEBHOOK_TIMEOUT_MS,
    maxAttempts: s.SVC_SIP_WEBHOOK_ATTEMPTS,
    firstRetryMs: 1000,
    logger,
  });
  return (call, gone) => webhook.announce(call, gone);
}

/** A session configuration checked as session.update would (throws the spec's error). */
const checkSession = (session: Record<string, unknown>): void => void applySessionUpdate(session, null, REALTIME_MODEL);

/** A failed bind said in the settings' words (Node's message names neither SVC_SIP_PORT nor a way out). */
function sipListenError(err: unknown, host: string, port: number): Error {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE')
    return new Error(
      `SIP port ${port} (UDP or TCP) is already in use on ${host} (SVC_SIP_PORT=${port}): stop what holds it, or set SVC_SIP_PORT to a free port`,
      { cause: err },
    );
  if (code === 'EACCES')
    return new Error(
      `not allowed to listen on ${host}:${port} (SVC_SIP_PORT=${port}): ports below 1024 need root; 5060 is SIP's usual port`,
      { cause: err },
    );
  if (code === 'EADDRNOTAVAIL') return new Error(`${host} is not an address of this machine (SVC_SIP_HOST=${host})`, { cause: err });
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Phone calls over SIP (docs/sip.md, an extension beyond the service interface): a SIP user agent
 * server on SVC_SIP_PORT (UDP; none unless set, loopback unless SVC_SIP_HOST says otherwise) whose
 * calls are realtime sessions on the same engine, factory and admission as the WebSocket and WebRTC.
 * Who may call is explicit: source addresses (SVC_SIP_ALLOWED_SOURCES, loopback by default) and,
 * when SVC_SIP_PASSWORD is set, digest credentials; every call acts as the key SVC_SIP_API_KEY_ID
 * names (by its id), checked per call so a revoked key takes no more.
 */
export const realtimeSipModule = defineModule({
  name: 'realtime-sip',
  docs: 'docs/sip.md',
  settings: {
    SVC_SIP_PORT: setting.optionalInt(0, 65535),
    SVC_SIP_HOST: setting.string('127.0.0.1'),
    SVC_SIP_ADVERTISED_ADDRESS: setting.string(''),
    SVC_SIP_API_KEY_ID: setting.string(''),
    SVC_SIP_ALLOWED_SOURCES: setting.list(['127.0.0.0/8', '::1']),
    SVC_SIP_USERNAME: setting.string('svc'),
    SVC_SIP_PASSWORD: setting.string(''),
    SVC_SIP_SESSION: setting.string('{}'),
    SVC_SIP_INVITES_PER_MINUTE: setting.int(60, 1, 100_000),
    SVC_SIP_INVITE_BURST: setting.int(10, 1, 10_000),
    SVC_SIP_ACK_TIMEOUT_MS: setting.int(32_000, 500, 120_000),
    SVC_SIP_MEDIA_TIMEOUT_MS: setting.int(30_000, 1_000, 600_000),
    SVC_SIP_MAX_MESSAGE_BYTES: setting.int(16 * 1024, 1024, 64 * 1024),
    SVC_SIP_WEBHOOK_URL: setting.string(''),
    SVC_SIP_WEBHOOK_SECRET: setting.string(''),
    SVC_SIP_WEBHOOK_ALLOWED_HOSTS: setting.list(),
    SVC_SIP_WEBHOOK_TIMEOUT_MS: setting.int(5_000, 100, 60_000),
    SVC_SIP_WEBHOOK_ATTEMPTS: setting.int(4, 1, 10),
    SVC_SIP_RING_TIMEOUT_MS: setting.int(30_000, 1_000, 300_000),
    SVC_SIP_CONFIG_KEY: setting.string(''),
  },
  check(s) {
    if (s.SVC_SIP_API_KEY_ID.startsWith(API_KEY_PREFIX)) {
      throw new Error(
        'Invalid configuration SVC_SIP_API_KEY_ID: name the key by its id (key_..., as `npm run keys -- list` shows it), not by its secret.',
      );
    }
    if (s.SVC_SIP_PORT !== undefined && !s.SVC_SIP_API_KEY_ID) {
      throw new Error(
        'Invalid configuration SVC_SIP_API_KEY_ID: SIP calls act as an API key; name one by its id (see `npm run keys -- list`).',
      );
    }
    applySessionUpdate(sessionOf(s.SVC_SIP_SESSION), null, REALTIME_MODEL);
    checkWebhook(s.SVC_SIP_WEBHOOK_URL, s.SVC_SIP_WEBHOOK_SECRET);
    checkSipConfigKey(s.SVC_SIP_CONFIG_KEY);
  },
  // Calls run on the realtime module's session factory and admission; the directory finds them by id.
  bind(provide, config) {
    provide(SERVER_TOKENS.PhoneCalls, () => new PhoneCallDirectory(checkSession));
    const s = config.settings;
    // the keys' stored SIP settings exist only where the SIP port is configured (their routes too)
    if (s.SVC_SIP_PORT === undefined) return;
    provide(SERVER_TOKENS.SipConfigs, async (get) =>
      sipConfigRepository(await get(SERVER_TOKENS.DataSource), s.SVC_SIP_CONFIG_KEY, s.SVC_DATA_DIR),
    );
  },
  routes({ config, get }): ModuleRoutes {
    const s = config.settings;
    if (s.SVC_SIP_PORT === undefined) return {};
    const manage = manageSipConfig({
      repo: get(SERVER_TOKENS.SipConfigs),
      clock: get(SHARED_TOKENS.Clock),
      addressPolicy: new AddressPolicy(s.SVC_SIP_WEBHOOK_ALLOWED_HOSTS),
      checkSession,
      serverUsername: s.SVC_SIP_PASSWORD ? s.SVC_SIP_USERNAME : null,
      keys: get(SERVER_TOKENS.ManageApiKeys),
    });
    return {
      authenticated: [
        sipConfigRoutes({ manage, realm: DIGEST_REALM, jsonBodyLimit: s.SVC_MAX_JSON_BODY_BYTES }),
        phoneCallRoutes({
          calls: get(SERVER_TOKENS.PhoneCalls),
          jsonBodyLimit: config.settings.SVC_MAX_JSON_BODY_BYTES,
          // With WebRTC on, its /hangup route serves phone calls too.
          withHangup: get(SERVER_TOKENS.RealtimeCalls) === null,
        }),
      ],
    };
  },
  async attach(_http, { config, get }): Promise<SipAttachment | null> {
    const s = config.settings;
    if (s.SVC_SIP_PORT === undefined) return null;
    const keys = get(SERVER_TOKENS.ManageApiKeys);
    const keyId = s.SVC_SIP_API_KEY_ID;
    if (!(await keys.principalOf(keyId))) {
      throw new Error(`Invalid configuration SVC_SIP_API_KEY_ID: no active API key has the id '${keyId}' (see \`npm run keys -- list\`).`);
    }
    const createSession = get(SERVER_TOKENS.RealtimeSessionFactory);
    const ids = get(SHARED_TOKENS.IdGenerator);
    const logger = get(SHARED_TOKENS.Logger).child({ module: 'sip' });
    const server = await SipServer.listen(
      {
        admission: get(REALTIME_TOKENS.Admission),
        principal: () => keys.principalOf(keyId).catch(rethrowUnavailable),
        // Keys' own digest users (POST /v1/realtime/sip/config): the user a caller proves selects its key.
        accounts: storedSipAccounts({
          repo: get(SERVER_TOKENS.SipConfigs),
          keys,
          defaultSession: sessionOf(s.SVC_SIP_SESSION),
          webhook: (url, secret) => webhookOf(s, logger, url, secret),
        }),
        // A call is a session whose model defaults as `?model=svc-realtime` would.
        createSession: (ctx) => createSession({ ...ctx, urlModel: REALTIME_MODEL }),
        session: sessionOf(s.SVC_SIP_SESSION),
        rateLimiter: new TokenBucketRateLimiter(get(SHARED_TOKENS.Clock), s.SVC_SIP_INVITES_PER_MINUTE, s.SVC_SIP_INVITE_BURST),
        // OpenAI's call ids (rtc_…), as WebRTC calls': /hangup takes either.
        newCallId: () => ids.id('rtc_'),
        directory: get(SERVER_TOKENS.PhoneCalls),
        ...(s.SVC_SIP_WEBHOOK_URL ? { announce: webhookOf(s, logger, s.SVC_SIP_WEBHOOK_URL, s.SVC_SIP_WEBHOOK_SECRET) } : {}),
        opus: get(REALTIME_TOKENS.OpusCodec),
        logger,
      },
      {
        host: s.SVC_SIP_HOST,
        port: s.SVC_SIP_PORT,
        allowedSources: s.SVC_SIP_ALLOWED_SOURCES,
        ...(s.SVC_SIP_PASSWORD ? { credentials: { username: s.SVC_SIP_USERNAME, password: s.SVC_SIP_PASSWORD } } : {}),
        ...(s.SVC_SIP_ADVERTISED_ADDRESS ? { advertisedAddress: s.SVC_SIP_ADVERTISED_ADDRESS } : {}),
        ackTimeoutMs: s.SVC_SIP_ACK_TIMEOUT_MS,
        mediaTimeoutMs: s.SVC_SIP_MEDIA_TIMEOUT_MS,
        audioLeadMs: s.SVC_REALTIME_AUDIO_LEAD_MS,
        ringTimeoutMs: s.SVC_SIP_RING_TIMEOUT_MS,
        limits: { maxMessageBytes: s.SVC_SIP_MAX_MESSAGE_BYTES, maxHeaders: 64 },
      },
    ).catch((err: unknown) => {
      throw sipListenError(err, s.SVC_SIP_HOST, s.SVC_SIP_PORT!);
    });
    const { address, port } = server.address;
    logger.info(
      { address, port, key: keyId, digest: !!s.SVC_SIP_PASSWORD, allowed: s.SVC_SIP_ALLOWED_SOURCES },
      `SIP server listening on udp://${address}:${port} and tcp://${address}:${port}`,
    );
    return { server, close: () => server.close() };
  },
});
