import type { WordTiming } from '../speech/speech-synthesizer.js';
import type { BlobOwner } from '../shared/sweep-orphaned-blobs.js';
import type { VideoJobRepository } from './ports.js';
import type { VideoJob } from './video-job.js';

/**
 * Where a job's files live in the BlobStore. Keys derive from the job alone, so the row needs no
 * key columns and a delete can always find every file. Blob keys allow a restricted alphabet; API
 * key ids are mapped into it.
 */
export function videoBlobKeys(job: Pick<VideoJob, 'apiKeyId' | 'id'>) {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_');
  const base = `videos/${safe(job.apiKeyId)}/${safe(job.id)}`;
  return {
    /** The reference photo as supplied. */
    image: `${base}/ref_image`,
    /** The driving speech as mono s16le PCM (its rate is in `speech`). */
    audio: `${base}/audio.pcm`,
    /** {sampleRate, words}: the rest of the driving speech. */
    speech: `${base}/speech.json`,
    video: `${base}/video.mp4`,
  };
}

export const videoBlobKeyList = (job: Pick<VideoJob, 'apiKeyId' | 'id'>): string[] => Object.values(videoBlobKeys(job));

/** The part of the driving speech stored as JSON beside the PCM. */
export interface StoredSpeechInfo {
  sampleRate: number;
  words: WordTiming[] | null;
}

/**
 * The video capability as the owner of `videos/` blobs: a blob is referenced while the job of its
 * folder exists and the key is one of that job's files.
 */
export function videoBlobOwner(jobs: Pick<VideoJobRepository, 'get'>): BlobOwner {
  return {
    prefix: 'videos/',
    async referenced(keys) {
      const filesOf = new Map<string, Set<string>>();
      const kept = new Set<string>();
      for (const key of keys) {
        const id = key.split('/')[2];
        if (!id) continue;
        let files = filesOf.get(id);
        if (!files) {
          const job = await jobs.get(id);
          files = new Set(job ? videoBlobKeyList(job) : []);
          filesOf.set(id, files);
        }
        if (files.has(key)) kept.add(key);
      }
      return kept;
    },
  };
}
