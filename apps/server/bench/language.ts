import { FrancLanguageDetector, ShortTextLanguageDetector } from '@svc/adapters-speech-synthesis';
import { HELD_OUT_SHORT_SENTENCES, SHORT_SENTENCES, languageAccuracy } from '@svc/adapters-testing';
import type { LanguageDetector } from '@svc/core';
import { round } from './harness.js';

type SentenceSet = Readonly<Record<string, readonly string[]>>;

/**
 * Which language the default voice speaks on short sentences (docs/speech.md): per language, the
 * share of the evaluation set named correctly by the detector the server had (franc, English when
 * it gave no answer) and by the one it has now; then the cost of the new one (load, heap, time per
 * sentence); then, for each candidate package installed beside the project (not dependencies:
 * `npm install --no-save franc-min franc-all tinyld languagedetect cld3-asm`), its bare answer.
 */
export async function benchLanguage(): Promise<Record<string, number | string>> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const memoryBefore = process.memoryUsage();
  const loadStarted = performance.now();
  const detector = await ShortTextLanguageDetector.create();
  const loadMs = performance.now() - loadStarted;
  gc?.();
  const memoryAfter = process.memoryUsage();
  const grewMb = (what: 'heapUsed' | 'rss') => round((memoryAfter[what] - memoryBefore[what]) / 1e6, 0);

  const out: Record<string, number | string> = {};
  for (const [name, set] of [
    ['tuning set', SHORT_SENTENCES],
    ['held-out set', HELD_OUT_SHORT_SENTENCES],
  ] as const) {
    const before = languageAccuracy(new FrancLanguageDetector(), set, 'en');
    const after = languageAccuracy(detector, set);
    for (const [i, row] of after.entries()) {
      out[`${name}: ${row.language} (${row.sentences} sentences), before / after %`] =
        `${round(before[i]!.percent, 1)} / ${round(row.percent, 1)}`;
    }
  }

  const all = Object.values(SHORT_SENTENCES).flat();
  const started = performance.now();
  for (let i = 0; i < 5; i++) for (const s of all) detector.detect(s);
  out['ShortTextLanguageDetector: load (ms)'] = round(loadMs, 0);
  out['ShortTextLanguageDetector: heap / RSS grown by the load (MB)'] = gc
    ? `${grewMb('heapUsed')} / ${grewMb('rss')}`
    : 'n/a (run with --expose-gc)';
  out['ShortTextLanguageDetector: time per sentence (ms)'] = round((performance.now() - started) / (5 * all.length), 3);

  for (const [candidate, load] of CANDIDATES) {
    const bare = await load().catch(() => null);
    if (!bare) {
      out[`candidate ${candidate}`] = 'not installed';
      continue;
    }
    const rows = languageAccuracy(bare, SHORT_SENTENCES);
    out[`candidate ${candidate}: % per language (${rows.map((r) => r.language).join(' ')})`] = rows
      .map((r) => round(r.percent, 1))
      .join(' ');
  }
  return out;
}

/** ISO 639-3 -> 639-1 for franc's answers in this set's languages. */
const FRANC_CODES: Record<string, string> = {
  eng: 'en',
  fra: 'fr',
  deu: 'de',
  spa: 'es',
  ita: 'it',
  por: 'pt',
  nld: 'nl',
  pol: 'pl',
  swe: 'sv',
  tur: 'tr',
  rus: 'ru',
  jpn: 'ja',
  cmn: 'zh',
};

type Loaded = Record<string, unknown>;
/** A package the project does not depend on, by a name TypeScript does not resolve. */
const optional = (name: string): Promise<Loaded> => import(name) as Promise<Loaded>;
const detectorOf = (detect: (text: string) => string | null): LanguageDetector => ({ detect });

/** Each candidate's own top answer (no script rule, no prior), as its README shows it used. */
const CANDIDATES: [string, () => Promise<LanguageDetector>][] = [
  ['franc', async () => francCandidate(await optional('franc'))],
  ['franc-min', async () => francCandidate(await optional('franc-min'))],
  ['franc-all', async () => francCandidate(await optional('franc-all'))],
  ['eld (large)', async () => eldCandidate(await optional('eld/large'))],
  ['eld (medium)', async () => eldCandidate(await optional('eld/medium'))],
  ['eld (small)', async () => eldCandidate(await optional('eld/small'))],
  ['tinyld (heavy)', async () => tinyldCandidate(await optional('tinyld/heavy'))],
  ['tinyld', async () => tinyldCandidate(await optional('tinyld'))],
  [
    'languagedetect',
    async () => {
      const LanguageDetect = (
        (await optional('languagedetect')) as {
          default: new () => { setLanguageType(t: string): void; detect(t: string, n: number): [string, number][] };
        }
      ).default;
      const ld = new LanguageDetect();
      ld.setLanguageType('iso2');
      return detectorOf((t) => ld.detect(t, 1)[0]?.[0] ?? null);
    },
  ],
  [
    'cld3-asm',
    async () => {
      const cld3 = (await optional('cld3-asm')) as {
        loadModule: () => Promise<{ create(min: number, max: number): { findLanguage(t: string): { language: string } } }>;
      };
      const identifier = (await cld3.loadModule()).create(0, 1000);
      return detectorOf((t) => identifier.findLanguage(t).language.replace(/^zh.*/, 'zh'));
    },
  ],
];

function francCandidate(franc: Loaded): LanguageDetector {
  const fn = franc.franc as (t: string, o: { minLength: number }) => string;
  return detectorOf((t) => FRANC_CODES[fn(t, { minLength: 1 })] ?? null);
}

function tinyldCandidate(tinyld: Loaded): LanguageDetector {
  const detect = tinyld.detect as (t: string) => string;
  return detectorOf((t) => detect(t) || null);
}

function eldCandidate(eld: Loaded): LanguageDetector {
  const detector = eld.eld as { detect(t: string): { language: string } };
  return detectorOf((t) => detector.detect(t).language || null);
}
