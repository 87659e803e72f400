import {
  API_KEY_PREFIX,
  InvalidApiKeyError,
  REALTIME_TOKENS,
  SHARED_TOKENS,
  SPEECH_TOKENS,
  type RealtimeVoiceDirectory,
  type ManageApiKeys,
  type VoiceCatalog,
} from '@svc/core';
import { WyomingServer, type RegisteredVoices, type WyomingIdentity, type WyomingServices } from '@svc/adapters-wyoming';
import { setting } from '../env-settings.js';
import { SERVER_TOKENS } from '../tokens.js';
import type { VoiceUseCases } from './voices.js';
import { SERVICE_INFO } from './foundation.js';
import { rethrowUnavailable } from '../runtime/rethrow-unavailable.js';
import { defineModule, type Attachment } from './module.js';

/** What the Wyoming module attaches: its TCP server. */
export interface WyomingAttachment extends Attachment {
  server: WyomingServer;
}

/**
 * The Wyoming protocol server for Home Assistant (documented in docs/wyoming.md): a TCP port beside
 * the HTTP one, on the same use cases (speech at SVC_WYOMING_SAMPLE_RATE, the voice catalog, the
 * registered voices of one named key, the transcription recognizer, the per-key rate limit).
 * Wyoming has no authentication: no port is opened unless SVC_WYOMING_PORT is set, it binds to
 * loopback unless SVC_WYOMING_HOST says otherwise, and it acts as the key SVC_WYOMING_API_KEY_ID
 * names (by its id, never its secret), or as no key (presets only).
 */
export const wyomingModule = defineModule({
  name: 'wyoming',
  docs: 'docs/wyoming.md',
  settings: {
    SVC_WYOMING_PORT: setting.optionalInt(0, 65535),
    SVC_WYOMING_HOST: setting.string('127.0.0.1'),
    SVC_WYOMING_API_KEY_ID: setting.string(''),
    SVC_WYOMING_SAMPLE_RATE: setting.int(22050, 8000, 48000),
    SVC_WYOMING_MAX_CONNECTIONS: setting.int(32, 1, 10_000),
    SVC_WYOMING_MAX_LINE_BYTES: setting.int(64 * 1024, 1024, 1024 * 1024),
    SVC_WYOMING_MAX_DATA_BYTES: setting.int(256 * 1024, 1024, 16 * 1024 * 1024),
    SVC_WYOMING_MAX_PAYLOAD_BYTES: setting.int(1024 * 1024, 4096, 64 * 1024 * 1024),
    SVC_WYOMING_MAX_AUDIO_SECONDS: setting.int(120, 1, 3600),
    SVC_WYOMING_IDLE_TIMEOUT_MS: setting.int(60_000, 1000, 3_600_000),
  },
  check(s) {
    if (s.SVC_WYOMING_API_KEY_ID.startsWith(API_KEY_PREFIX)) {
      throw new Error(
        'Invalid configuration SVC_WYOMING_API_KEY_ID: name the key by its id (key_..., as `npm run keys -- list` shows it), not by its secret.',
      );
    }
  },
  // Binds nothing of its own: the port drives the use cases and ports the other modules bind.
  bind() {},
  async attach(_http, { config, get }): Promise<WyomingAttachment | null> {
    const s = config.settings;
    if (s.SVC_WYOMING_PORT === undefined) return null;
    const keys = get(SERVER_TOKENS.ManageApiKeys);
    const keyId = s.SVC_WYOMING_API_KEY_ID;
    if (keyId && !(await keys.principalOf(keyId))) {
      throw new Error(
        `Invalid configuration SVC_WYOMING_API_KEY_ID: no active API key has the id '${keyId}' (see \`npm run keys -- list\`).`,
      );
    }
    const catalog = get(SPEECH_TOKENS.VoiceCatalog);
    const metrics = get(SERVER_TOKENS.Metrics);
    const limiter = get(SHARED_TOKENS.RateLimiter);
    const services: WyomingServices = {
      speech: get(SERVER_TOKENS.SpeechAtRate)(s.SVC_WYOMING_SAMPLE_RATE),
      sampleRate: s.SVC_WYOMING_SAMPLE_RATE,
      catalog,
      transcription: get(SERVER_TOKENS.TranscribeAudio),
      voices: registeredVoices(get(SERVER_TOKENS.VoiceUseCases), catalog, get(REALTIME_TOKENS.VoiceDirectory)),
      identity: keyIdentity(keys, keyId),
      // A Redis that does not answer is a service_unavailable error, as on the REST API.
      rateLimiter: { take: (bucket, cost) => Promise.resolve(limiter.take(bucket, cost)).catch(rethrowUnavailable) },
      logger: get(SHARED_TOKENS.Logger).child({ module: 'wyoming' }),
      observer: { request: (r) => metrics.recordWyomingRequest(r.kind, r.outcome, r.seconds) },
      program: { name: 'svc', version: SERVICE_INFO.version },
    };
    const server = await WyomingServer.listen(
      services,
      {
        maxLineBytes: s.SVC_WYOMING_MAX_LINE_BYTES,
        maxDataBytes: s.SVC_WYOMING_MAX_DATA_BYTES,
        maxPayloadBytes: s.SVC_WYOMING_MAX_PAYLOAD_BYTES,
        maxAudioSeconds: s.SVC_WYOMING_MAX_AUDIO_SECONDS,
        maxConnections: s.SVC_WYOMING_MAX_CONNECTIONS,
        idleTimeoutMs: s.SVC_WYOMING_IDLE_TIMEOUT_MS,
      },
      { host: s.SVC_WYOMING_HOST, port: s.SVC_WYOMING_PORT },
    );
    metrics.trackWyomingConnections(() => server.activeConnections);
    const { host, port } = server.address;
    services.logger.info(
      {
        host,
        port,
        key: s.SVC_WYOMING_API_KEY_ID || null,
        sampleRate: s.SVC_WYOMING_SAMPLE_RATE,
        recognizer: services.transcription.describe()?.name ?? null,
      },
      `wyoming server listening on tcp://${host}:${port}`,
    );
    return { server, close: () => server.close(config.settings.SVC_SHUTDOWN_GRACE_MS) };
  },
});

/** The key the port acts as, looked up on every request so a revoked key stops working at once. */
function keyIdentity(keys: ManageApiKeys, keyId: string): WyomingIdentity {
  return {
    async principal() {
      if (!keyId) return null;
      const principal = await keys.principalOf(keyId).catch(rethrowUnavailable);
      if (!principal)
        throw new InvalidApiKeyError(`The API key the Wyoming port acts as (${keyId}, SVC_WYOMING_API_KEY_ID) has been revoked.`);
      return principal;
    },
  };
}

/** The key's registered voices, each with the language of the preset it is spoken with. */
function registeredVoices(voices: VoiceUseCases, catalog: VoiceCatalog, directory: RealtimeVoiceDirectory): RegisteredVoices {
  return {
    async list(principal, limit) {
      const page = await voices.list.execute(principal, { limit }).catch(rethrowUnavailable);
      return Promise.all(
        page.voices.map(async (v) => {
          const record = await voices.get.execute(principal, v.id).catch(() => null);
          const language = record ? (catalog.get(record.profile.base.preset)?.language ?? null) : null;
          return { id: v.id, description: v.description, language };
        }),
      );
    },
    // The realtime sessions' check: a preset, a voice an engine builds by name, or one of the key's registered voices.
    exists: (principal, voiceId) => directory.exists(voiceId, principal),
  };
}
