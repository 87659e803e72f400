import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { LanguageScores } from './short-text-language-detector.js';

/**
 * eld's n-gram database held compactly. eld (Apache-2.0) ships each database as one JavaScript
 * object literal of ~100,000 n-grams, each an object of per-language scores; importing it makes V8
 * compile that literal and keep every small object, which multiplies the server's idle memory
 * (docs/speech.md has the figures). Here the file is read as text and scanned into one Map from
 * n-gram to its run of (language, score) pairs in typed arrays, and eld's own detection code runs over it unchanged: the
 * n-gram table it indexes is a Proxy that builds the tiny per-language object of the few n-grams
 * of the text being detected.
 *
 * The scan reads the database file's own format (bare or single-quoted keys, `\'` its only
 * escape), so the eld version is pinned in package.json; a test checks the scores equal eld's own.
 */
interface CompactNgrams {
  type: string;
  languages: Record<number, string>;
  /** n-gram -> index of its first (language, score) pair; its pairs run to the next n-gram's. */
  index: Map<string, number>;
  starts: Uint32Array;
  languageIds: Uint8Array;
  scores: Uint16Array;
}

interface EldInstance {
  detect(text: string): { getScores(): Record<string, number> };
}
interface EldDetectorModule {
  createEld(): { instance: EldInstance; loadData(data: unknown): string };
}

/** eld's `src` folder: its entry points are exported, its database and detector are files beside them. */
function eldSourceDir(): string {
  return dirname(dirname(fileURLToPath(import.meta.resolve('eld/medium'))));
}

/** Each database is read once per process: the scores are a pure function, shared by every server in it. */
const loaded = new Map<string, Promise<LanguageScores>>();

/** Scores over eld's database of `size` (eld's names: 'extrasmall', 'small', 'medium', 'large'). */
export function eldCompactScores(size = 'medium'): Promise<LanguageScores> {
  let scores = loaded.get(size);
  if (!scores) {
    scores = load(size);
    loaded.set(size, scores);
    scores.catch(() => loaded.delete(size));
  }
  return scores;
}

async function load(size: string): Promise<LanguageScores> {
  const source = eldSourceDir();
  const [text, detector] = await Promise.all([
    readFile(join(source, 'ngrams', `${size}.js`), 'utf8'),
    import(pathToFileURL(join(source, 'languageDetector.js')).href) as Promise<EldDetectorModule>,
  ]);
  const db = parseNgramDatabase(text);
  const { instance, loadData } = detector.createEld();
  loadData({ type: db.type, languages: db.languages, isSubset: false, ngrams: ngramTable(db) });
  return (t) => instance.detect(t).getScores();
}

/** The object eld indexes by n-gram: each lookup builds that n-gram's {language id: score}. */
function ngramTable(db: CompactNgrams): Record<string, Record<number, number>> {
  return new Proxy({} as Record<string, Record<number, number>>, {
    get(_target, key) {
      if (typeof key !== 'string') return undefined;
      const at = db.index.get(key);
      if (at === undefined) return undefined;
      const scores: Record<number, number> = {};
      for (let i = db.starts[at]!; i < db.starts[at + 1]!; i++) scores[db.languageIds[i]!] = db.scores[i]!;
      return scores;
    },
  });
}

/** The character codes the scan looks for. */
const [COLON, COMMA, QUOTE, BACKSLASH, OPEN_BRACE, CLOSE_BRACE, DIGIT_0, DIGIT_9] = [':', ',', "'", '\\', '{', '}', '0', '9'].map((c) =>
  c.charCodeAt(0),
) as [number, number, number, number, number, number, number, number];

/**
 * Reads `export const ngramsData = {type:'M60',languages:{0:'am',...},isSubset:false,ngrams:{KEY:{0:176,...},...}}`
 * by character codes into preallocated arrays: no intermediate strings or arrays per n-gram, so
 * loading leaves little garbage behind to swell the process.
 */
export function parseNgramDatabase(text: string): CompactNgrams {
  const type = /type:'([^']*)'/.exec(text)?.[1];
  const languagesBody = /languages:\{([^}]*)\}/.exec(text)?.[1];
  const ngramsAt = text.indexOf('ngrams:{');
  if (!type || languagesBody === undefined || ngramsAt < 0)
    throw new Error("eld's n-gram database is not in the format this version reads.");
  const languages: Record<number, string> = {};
  for (const m of languagesBody.matchAll(/(\d+):'([^']*)'/g)) languages[Number(m[1])] = m[2]!;

  // Every pair has one ':' and every n-gram one more: enough room for both, trimmed at the end.
  let colons = 0;
  for (let c = ngramsAt; c < text.length; c++) if (text.charCodeAt(c) === COLON) colons++;
  const starts = new Uint32Array(colons + 1);
  const languageIds = new Uint8Array(colons);
  const scores = new Uint16Array(colons);
  const index = new Map<string, number>();
  let ngrams = 0;
  let pairs = 0;
  let i = ngramsAt + 'ngrams:{'.length;
  const fail = (): never => {
    throw new Error(`eld's n-gram database: unexpected text at offset ${i}.`);
  };
  const readNumber = (): number => {
    const from = i;
    let n = 0;
    for (let c = text.charCodeAt(i); c >= DIGIT_0 && c <= DIGIT_9; c = text.charCodeAt(++i)) n = n * 10 + (c - DIGIT_0);
    return i === from ? fail() : n;
  };
  while (text.charCodeAt(i) !== CLOSE_BRACE) {
    let key: string;
    if (text.charCodeAt(i) === QUOTE) {
      const from = ++i;
      let escaped = false;
      for (let c = text.charCodeAt(i); c !== QUOTE; c = text.charCodeAt(++i)) {
        if (Number.isNaN(c)) fail();
        if (c === BACKSLASH) {
          escaped = true;
          i++;
        }
      }
      key = escaped ? text.slice(from, i).replace(/\\(.)/g, '$1') : text.slice(from, i);
      i++;
    } else {
      const end = text.indexOf(':', i);
      key = end < 0 ? fail() : text.slice(i, end);
      i = end;
    }
    if (text.charCodeAt(i) !== COLON || text.charCodeAt(i + 1) !== OPEN_BRACE) fail();
    i += 2;
    index.set(key, ngrams);
    starts[ngrams++] = pairs;
    for (;;) {
      const language = readNumber();
      if (text.charCodeAt(i++) !== COLON) fail();
      const score = readNumber();
      if (language > 255 || score > 65535) fail();
      languageIds[pairs] = language;
      scores[pairs++] = score;
      const next = text.charCodeAt(i++);
      if (next === CLOSE_BRACE) break;
      if (next !== COMMA) fail();
    }
    if (text.charCodeAt(i) === COMMA) i++;
  }
  starts[ngrams] = pairs;
  return {
    type,
    languages,
    index,
    starts: starts.slice(0, ngrams + 1),
    languageIds: languageIds.slice(0, pairs),
    scores: scores.slice(0, pairs),
  };
}
