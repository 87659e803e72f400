/** Where the transcript of spoken audio stands at a time: `textLength` characters are said by `endMs`. */
export interface AudioMark {
  endMs: number;
  textLength: number;
}

/**
 * Word-level marks of one spoken sentence: the synthesizer gives no word timings, so each word is
 * placed by its share of the sentence's characters over the sentence's audio. `offset` is the
 * sentence's position in the whole transcript. Truncation (client `conversation.item.truncate` and
 * barge-in) keeps the words whose mark is at or before the cut.
 */
export function wordMarks(sentence: string, offset: number, startMs: number, endMs: number): AudioMark[] {
  const marks: AudioMark[] = [];
  const length = sentence.length || 1;
  for (const match of sentence.matchAll(/\S+/g)) {
    const end = match.index + match[0].length;
    marks.push({ endMs: Math.round(startMs + ((endMs - startMs) * end) / length), textLength: offset + end });
  }
  return marks;
}
