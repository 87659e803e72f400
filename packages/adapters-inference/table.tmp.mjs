import Init from '@echogarden/espeak-ng-emscripten';
import { EspeakIpa } from './dist/src/speech/models/espeak-ipa.js';
import { piperPhonemeSequence } from './dist/src/speech/piper/piper-voice-config.js';
const m = await Init();
const w = new m.eSpeakNGWorker();
// The pairing before this change (0a97db6's espeak-ipa.ts pairWords + piperWordPhonemes), for the table.
function oldPiper(text, ipa) {
  const phonemeWords = ipa.split(/\s+/).map((x) => x.split('_').filter((p) => p && !/^\([a-z]{2,3}(?:-[a-z0-9]+)*\)$/i.test(p))).filter((u) => u.length > 0);
  const written = []; let pending = '';
  for (const token of text.split(/\s+/).filter(Boolean)) {
    if (!/[\p{L}\p{N}]/u.test(token)) { if (written.length > 0) written[written.length - 1].after += token; else pending += token; continue; }
    written.push({ word: token, after: /[^\p{L}\p{N}\p{M}]+$/u.exec(token)?.[0] ?? '' });
  }
  const words = written.map((x, i) => ({ ...x, phonemes: i === written.length - 1 ? phonemeWords.slice(i).flatMap((u, k) => (k > 0 ? [' ', ...u] : u)) : (phonemeWords[i] ?? []) }));
  const str = words.map((x) => { const t = [...x.after].reverse().find((c) => '.,?!:;'.includes(c)); return x.phonemes.join('').normalize('NFD') + (t ?? ''); }).join(' ');
  const timings = words.map((x) => x.word + '=' + x.phonemes.join('')).join(' ');
  return { str, timings };
}
const ipa = await EspeakIpa.create();
const sentences = process.argv.slice(2);
for (const text of sentences) {
  w.set_voice(/^(Bonjour)/.test(text) ? 'fr' : 'en-us');
  const old = oldPiper(text, w.synthesize_ipa(text.replace(/&/g, '&amp;').replace(/</g, '&lt;')).ipa);
  const words = ipa.phonemize(text, /^(Bonjour)/.test(text) ? 'fr' : 'en-us');
  const seq = piperPhonemeSequence(words, { phonemeMap: new Map(), vowelClusters: [] }).map((p) => p.phoneme).join('');
  console.log(`| ${text} | \`${old.str}\` | \`${seq}\` |`);
  console.log(`|   | ${old.timings} | ${words.map((x) => x.word + "=" + x.phonemes.join("")).join(" ")} |`);
}
const { kokoroInputIds } = await import('./dist/src/speech/kokoro/kokoro-speech-synthesizer.js');
const { kokoroWordSymbols } = await import('./dist/src/speech/kokoro/kokoro-phonemes.js');
for (const text of sentences) {
  const words = ipa.phonemize(text, /^(Bonjour)/.test(text) ? 'fr' : 'en-us');
  console.log('kokoro', text, '=>', words.map((x, i) => kokoroWordSymbols(x, /^(Bonjour)/.test(text) ? 'f' : 'a', i === words.length - 1)).join(''));
}
