import Init from '@echogarden/espeak-ng-emscripten';
const m = await Init();
const w = new m.eSpeakNGWorker();
w.set_voice('en-us');
const text = process.argv[2];
const evs = [];
const trace = w.synthesize_and_get_phonemes(text, (s, events) => { for (const e of events) if (e.type === 'word' || e.type==='end') evs.push([e.type, e.text_position, e.word_length, [...text].slice(e.text_position - 1, e.text_position - 1 + Math.max(e.word_length,1)).join('')]); return 0; });
console.log(JSON.stringify(trace)); console.log(JSON.stringify(evs));
