import type { Principal } from '../auth/api-key.js';
import type { BlobStore } from '../shared/blob-store.js';
import type { Clock } from '../shared/clock.js';
import { InvalidParameterError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import { silentLogger } from '../shared/logger.js';
import { characterCount } from '../speech/speech-request.js';
import type { MediaInput } from '../media/media-fetcher.js';
import { VoiceLimitError } from './errors.js';
import type { ReferenceAudioLoader } from './reference-audio.js';
import { VoiceCap } from './voice-cap.js';
import type { VoiceProfiler } from './voice-profiler.js';
import type { VoiceRepository } from './voice-repository.js';
import { VOICE_LIMITS, type VoiceRecord } from './voice.js';

export interface RegisterVoiceCommand {
  refAudio: MediaInput;
  refText?: string | null;
  description?: string | null;
}

export interface RegisterVoiceOptions {
  /** Voices one key may store (SVC_VOICES_MAX_PER_KEY); unset or 0: no limit. */
  maxPerKey?: number;
}

export interface RegisterVoiceResult {
  voice: VoiceRecord;
  /** False when this key had already registered the same audio (the existing voice is returned). */
  created: boolean;
}

/**
 * POST /v1/audio/voices. The id comes from the decoded audio, so registering the same audio twice
 * under one key returns the first registration. Write order makes a crash harmless: the reference
 * audio goes to the blob store under a key unique to this registration, then the row is inserted.
 * A row therefore never exists without its audio; a crash between the writes leaves only an
 * unreferenced blob, and a registration that loses a race removes its own blob. A key at its cap
 * of stored voices is refused before anything is read (VoiceCap).
 */
export class RegisterVoice {
  private readonly cap: VoiceCap;

  constructor(
    private readonly loader: ReferenceAudioLoader,
    private readonly profiler: VoiceProfiler,
    private readonly voices: VoiceRepository,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    options: RegisterVoiceOptions = {},
    private readonly logger: Logger = silentLogger,
  ) {
    this.cap = new VoiceCap(voices, options.maxPerKey ?? 0);
  }

  /**
   * `command` may be a function that reads the request body: it is called only once the key is under
   * its cap of stored voices, so a refused registration (429) costs no body read, no fetch, no decoding.
   * At the cap every registration is refused, also of audio the key has registered already.
   */
  async execute(
    principal: Principal,
    command: RegisterVoiceCommand | (() => Promise<RegisterVoiceCommand>),
    signal?: AbortSignal,
  ): Promise<RegisterVoiceResult> {
    const done = await this.cap.admit(principal.apiKeyId);
    try {
      return await this.register(principal, typeof command === 'function' ? await command() : command, signal);
    } finally {
      done();
    }
  }

  private async register(principal: Principal, command: RegisterVoiceCommand, signal?: AbortSignal): Promise<RegisterVoiceResult> {
    const refText = checkedText(command.refText, 'ref_text', VOICE_LIMITS.refTextMaxChars);
    const description = checkedText(command.description, 'description', VOICE_LIMITS.descriptionMaxChars);
    const reference = await this.loader.load(command.refAudio, 'ref_audio', signal, { uploadable: true, apiKeyId: principal.apiKeyId });

    const existing = await this.voices.find(principal.apiKeyId, reference.voiceId);
    if (existing) return { voice: existing, created: false };

    const profile = await this.profiler.profile(reference.pcm, refText || null, signal);
    signal?.throwIfAborted();
    const audioKey = blobKeyFor(principal.apiKeyId, reference.voiceId, this.ids.id('ref_'));
    await this.blobs.put(audioKey, reference.bytes);
    const record: VoiceRecord = {
      id: reference.voiceId,
      apiKeyId: principal.apiKeyId,
      refText,
      description,
      createdAt: this.clock.now(),
      audioKey,
      audioFormat: reference.format,
      audioBytes: reference.bytes.length,
      durationSeconds: reference.durationSeconds,
      profile,
    };
    const stored = await this.voices.insertIfAbsent(record);
    if (!stored.created) await this.removeQuietly(audioKey);
    else if (await this.cap.exceeded(principal.apiKeyId)) await this.takeBack(record);
    else
      this.logger.info(
        { voice: record.id, seconds: Math.round(record.durationSeconds * 10) / 10, base: profile.base.preset },
        'voice registered',
      );
    return { voice: stored.record, created: stored.created };
  }

  /**
   * Another process stored a voice of this key while this one registered (each admitted its own under
   * the cap): this row is taken back. Each registration counts after storing its row, so of rows
   * stored together at least the last one sees them all: the key never keeps more than its cap
   * (both may be refused, which errs on the side of the cap).
   */
  private async takeBack(record: VoiceRecord): Promise<never> {
    await this.voices.delete(record.apiKeyId, record.id);
    await this.removeQuietly(record.audioKey);
    throw new VoiceLimitError(this.cap.max);
  }

  private async removeQuietly(key: string): Promise<void> {
    try {
      await this.blobs.delete(key);
    } catch (err) {
      this.logger.warn({ key, err: String(err) }, 'could not remove the blob of a registration that was not kept');
    }
  }
}

function checkedText(value: string | null | undefined, param: string, maxChars: number): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new InvalidParameterError(`'${param}' must be a string.`, param);
  // NUL cannot be stored in a Postgres text column; no description or transcript needs it.
  if (value.includes('\u0000')) throw new InvalidParameterError(`'${param}' must not contain NUL characters.`, param);
  const length = characterCount(value);
  if (length > maxChars) {
    throw new InvalidParameterError(`'${param}' is ${length} characters long; the maximum is ${maxChars}.`, param);
  }
  return value;
}

/** Blob keys allow a restricted alphabet; API key ids are mapped into it. */
function blobKeyFor(apiKeyId: string, voiceId: string, registration: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_');
  return `voices/${safe(apiKeyId)}/${safe(voiceId)}/${safe(registration)}`;
}
