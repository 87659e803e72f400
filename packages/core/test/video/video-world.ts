import type { Principal } from '../../src/auth/api-key.js';
import { VoiceCatalog } from '../../src/speech/voice-catalog.js';
import { SynthesizeSpeech } from '../../src/speech/synthesize-speech.js';
import { CreateVideo } from '../../src/video/create-video.js';
import { DeleteVideo } from '../../src/video/delete-video.js';
import { DrivingSpeechLoader } from '../../src/video/driving-speech-loader.js';
import { GetVideo } from '../../src/video/get-video.js';
import { GetVideoContent } from '../../src/video/get-video-content.js';
import { ListVideos } from '../../src/video/list-videos.js';
import { ReferenceImageLoader } from '../../src/video/reference-image-loader.js';
import { RenderVideoJob } from '../../src/video/render-video-job.js';
import { ResumeVideoJobs } from '../../src/video/resume-video-jobs.js';
import { StreamVideo } from '../../src/video/stream-video.js';
import { SweepExpiredVideos } from '../../src/video/sweep-expired-videos.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { SequentialIds } from '../fakes/fake-ids.js';
import { KeywordDetector, preset, TaggingCodec, ToneSynthesizer } from '../fakes/fake-speech.js';
import { InlineMediaFetcher, MemoryBlobStore } from '../fakes/index.js';
import { FakeEncoder, FakeRenderer, InMemoryVideoJobRepository, LimitedTestCodec, RecordingQueue } from './video-fakes.js';

export const alice: Principal = { apiKeyId: 'key_alice', name: 'alice' };
export const bob: Principal = { apiKeyId: 'key/bob', name: 'bob' };

export const HOUR = 3_600_000;

/** The video capability wired on in-memory fakes (TTS: 10 ms of tone per character, 24 kHz). */
export function videoWorld(options: { queue?: RecordingQueue; maxPendingPerKey?: number } = {}) {
  const clock = new FakeClock();
  const ids = new SequentialIds();
  const jobs = new InMemoryVideoJobRepository();
  const blobs = new MemoryBlobStore();
  const queue = options.queue ?? new RecordingQueue();
  const renderer = new FakeRenderer();
  const encoder = new FakeEncoder();
  const codec = new LimitedTestCodec();
  const tts = new ToneSynthesizer('flite', [preset('slt', 'flite', 'en')]);
  const synthesize = new SynthesizeSpeech(new VoiceCatalog([tts]), new TaggingCodec(), new KeywordDetector(), null, undefined, {
    sampleRate: 24000,
  });
  const fetcher = new InlineMediaFetcher();
  const create = new CreateVideo(
    new ReferenceImageLoader(fetcher),
    new DrivingSpeechLoader(fetcher, codec, synthesize),
    renderer,
    jobs,
    blobs,
    queue,
    clock,
    ids,
    { retentionMs: 24 * HOUR, ...(options.maxPendingPerKey !== undefined ? { maxPendingPerKey: options.maxPendingPerKey } : {}) },
  );
  const render = new RenderVideoJob(jobs, blobs, renderer, encoder, clock);
  return {
    clock,
    jobs,
    blobs,
    queue,
    renderer,
    encoder,
    codec,
    tts,
    create,
    render,
    stream: new StreamVideo(create, render),
    get: new GetVideo(jobs),
    content: new GetVideoContent(jobs, blobs),
    list: new ListVideos(jobs),
    remove: new DeleteVideo(jobs, blobs),
    sweep: new SweepExpiredVideos(jobs, blobs, clock),
    resume: (maxAttempts = 2) => new ResumeVideoJobs(jobs, queue, clock, maxAttempts),
  };
}
