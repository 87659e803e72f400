/**
 * Mid-sentence pauses in real recorded speech: pocketsphinx-testdata's readers (installed by
 * scripts/setup-system.sh), each sentence with one pause stretched in at a natural clause or
 * phrase boundary (the word ends timed with `pocketsphinx_continuous -time yes`). A person pausing
 * there has not finished.
 */
const LIBRIVOX = 'librivox/sense_and_sensibility_01_austen_64kb-';
export const PAUSED_AT: Array<{ file: string; seconds: number; words: string }> = [
  { file: `${LIBRIVOX}0870.wav`, seconds: 1.58, words: 'and mister john dashwood | had then leisure' },
  { file: `${LIBRIVOX}0870.wav`, seconds: 2.71, words: 'had then leisure | to consider' },
  { file: `${LIBRIVOX}0870.wav`, seconds: 3.44, words: 'to consider | how much' },
  { file: `${LIBRIVOX}0870.wav`, seconds: 4.32, words: 'how much | there might be' },
  { file: `${LIBRIVOX}0870.wav`, seconds: 5.45, words: 'prudently | in his power' },
  { file: `${LIBRIVOX}0870.wav`, seconds: 6.03, words: 'in his power | to do for them' },
  { file: `${LIBRIVOX}0890.wav`, seconds: 0.49, words: 'unless | to be rather cold hearted' },
  { file: `${LIBRIVOX}0890.wav`, seconds: 2.2, words: 'rather cold hearted | and rather selfish' },
  { file: `${LIBRIVOX}0890.wav`, seconds: 3.58, words: 'and rather selfish | is to be ill disposed' },
  { file: `${LIBRIVOX}0920.wav`, seconds: 0.97, words: 'had he married | a more amiable woman' },
  { file: `${LIBRIVOX}0920.wav`, seconds: 2.49, words: 'a more amiable woman | he might have been made' },
  { file: `${LIBRIVOX}0920.wav`, seconds: 3.69, words: 'he might have been made | still more respectable' },
  { file: `${LIBRIVOX}0920.wav`, seconds: 4.98, words: 'still more respectable | than he was' },
  { file: `${LIBRIVOX}0930.wav`, seconds: 0.92, words: 'he might even | have been made' },
  { file: `${LIBRIVOX}0930.wav`, seconds: 1.67, words: 'have been made | amiable himself' },
  { file: `${LIBRIVOX}0880.wav`, seconds: 0.97, words: 'he was not | an ill disposed young man' },
  { file: 'something.raw', seconds: 1.16, words: 'go somewhere | and do something' },
  { file: 'goforward.raw', seconds: 1.16, words: 'go forward | ten meters' },
  { file: 'numbers.raw', seconds: 1.18, words: 'thirty three | four oh six ninety two' },
  { file: 'numbers.raw', seconds: 2.37, words: 'thirty three four oh six | ninety two' },
];
