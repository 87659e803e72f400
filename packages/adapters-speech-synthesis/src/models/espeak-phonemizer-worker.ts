// Worker thread holding one warm espeak-ng instance that turns sentences into IPA for the neural voices.
import { hostWorker } from '@svc/adapters-runtime/worker';
import { EspeakIpa, type PhonemizedWord } from './espeak-ipa.js';

export interface PhonemizeJob {
  text: string;
  voice: string;
}

void hostWorker<PhonemizeJob, PhonemizedWord[], EspeakIpa>(
  async () => ({ state: await EspeakIpa.create() }),
  (ipa, job) => ({ value: ipa.phonemize(job.text, job.voice) }),
);
