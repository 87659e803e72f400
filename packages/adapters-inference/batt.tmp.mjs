import { EspeakIpa } from './dist/src/speech/models/espeak-ipa.js';
const ipa = await EspeakIpa.create();
const S = [
 'The weather today is sunny with a light breeze from the west.', 'Please remember to buy milk, eggs and bread on your way home.', 'Our meeting has been moved to three o\'clock on Thursday afternoon.', 'She opened the window and listened to the birds singing outside.', 'Turn left at the next corner and the station is on your right.',
 'I\'d like to order a pizza, but I don\'t have any cash.', 'What time does the 7:45 train leave for New York?', 'He paid $12.50 for 3 apples and 2 oranges.', 'In 1999, about 60% of people used e-mail.', 'Dr. Smith lives at 221B Baker St., London.', 'We\'re going to the U.K. next week—can\'t wait!', '"Hello," she said, "how are you?"', 'Ok... so what? (It doesn\'t matter.)', 'A cat, a dog and a bird sat in a row.', 'It is what it is, and that\'s that.', 'Let me see... maybe tomorrow; maybe not.',
];
let bad = 0;
for (const t of S) {
  const words = ipa.phonemize(t, 'en-us');
  const empty = words.filter((w) => w.phonemes.length === 0).map((w) => w.word);
  const line = words.map((w) => `${w.word}=${w.phonemes.join('')}${w.joinedWithNext ? '+' : ''}${w.clauseEnd ? `[${w.clauseEnd.mark}]` : ''}`).join(' ');
  if (empty.length) bad++;
  console.log((empty.length ? 'EMPTY ' + empty.join(',') + ' :: ' : '') + line);
}
for (const [v, t] of [['fr', "C'est l'heure de partir, n'est-ce pas ?"], ['de', 'Das ist ein schönes Haus, nicht wahr?'], ['es', '¿Dónde está la estación de tren?'], ['it', 'Vorrei un caffè e una pizza, per favore.']]) {
  const words = ipa.phonemize(t, v);
  console.log(v, words.map((w) => `${w.word}=${w.phonemes.join('')}${w.joinedWithNext ? '+' : ''}${w.clauseEnd ? `[${w.clauseEnd.mark}]` : ''}`).join(' '));
}
console.log('sentences with an empty word:', bad, 'of', S.length);
