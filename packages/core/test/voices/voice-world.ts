import type { Principal } from '../../src/auth/api-key.js';
import { VoiceCatalog } from '../../src/speech/voice-catalog.js';
import { BaseVoiceLibrary } from '../../src/voices/base-voices.js';
import { DeleteVoice } from '../../src/voices/delete-voice.js';
import { GetVoice } from '../../src/voices/get-voice.js';
import { ListVoices } from '../../src/voices/list-voices.js';
import { ReferenceAudioLoader } from '../../src/voices/reference-audio.js';
import { RegisterVoice, type RegisterVoiceOptions } from '../../src/voices/register-voice.js';
import { VoiceCloningService } from '../../src/voices/voice-cloning-service.js';
import { VoiceProfiler } from '../../src/voices/voice-profiler.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { createHash } from 'node:crypto';
import { SequentialIds } from '../fakes/fake-ids.js';
import {
  InlineMediaFetcher,
  InMemoryVoiceRepository,
  MemoryBlobStore,
  NegatingConverter,
  PresetToneSynthesizer,
  TestAudioCodec,
  ZeroCrossingAnalyzer,
} from '../fakes/index.js';

export const alice: Principal = { apiKeyId: 'key_alice', name: 'alice' };
export const bob: Principal = { apiKeyId: 'key_bob', name: 'bob' };

/** Real SHA-256: voice ids must look like the service's. */
const sha256Hasher = { sha256: (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex') };

/**
 * The voices capability wired on in-memory fakes, with every collaborator reachable for assertions.
 * `registerIn()` is the registration of another process sharing this world's repository and blobs.
 */
export function voiceWorld(options: RegisterVoiceOptions = {}) {
  const clock = new FakeClock();
  const repo = new InMemoryVoiceRepository();
  const blobs = new MemoryBlobStore();
  const codec = new TestAudioCodec();
  const analyzer = new ZeroCrossingAnalyzer();
  const converter = new NegatingConverter();
  const engine = new PresetToneSynthesizer({ slt: 170, rms: 100, awb: 130 });
  const catalog = new VoiceCatalog([engine]);
  const baseVoices = new BaseVoiceLibrary(catalog, analyzer, ['slt', 'rms', 'awb'], undefined, 16000);
  const profiler = new VoiceProfiler(analyzer, converter, baseVoices);
  const loader = new ReferenceAudioLoader(new InlineMediaFetcher(), codec, sha256Hasher);
  const isPreset = (name: string) => catalog.isPreset(name);
  const ids = new SequentialIds();
  const registerIn = () => new RegisterVoice(loader, profiler, repo, blobs, clock, ids, options);
  return {
    clock,
    repo,
    blobs,
    codec,
    analyzer,
    converter,
    engine,
    catalog,
    baseVoices,
    register: registerIn(),
    registerIn,
    list: new ListVoices(repo),
    get: new GetVoice(repo),
    remove: new DeleteVoice(isPreset, repo, blobs),
    cloner: new VoiceCloningService(repo, loader, profiler, converter, (p) => catalog.get(p) !== undefined),
  };
}
