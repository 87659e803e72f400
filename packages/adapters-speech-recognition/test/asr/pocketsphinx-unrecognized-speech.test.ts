// @test-tier slow: decodes real speech with pocketsphinx
import { expect } from 'chai';
import { MIN_UNRECOGNIZED_SPEECH_MS, type Principal, type RecognitionStream } from '@svc/core';
import { PocketsphinxSpeechRecognizer } from '../../src/index.js';
import { concat, librivoxClip, noiseSuppressed, silenceMs, suppressedRoom } from '@svc/adapters-testing';

const principal = {} as Principal;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const PIECE = 1600;

/** What the stream says once each 100 ms piece is decoded: where the piece ends (ms), the words, the speech after the last word. */
interface Heard {
  atMs: number;
  partial: string;
  unrecognizedSpeechMs: number | undefined;
}

/** Writes `samples` 100 ms at a time, each once the decoder has answered the previous one, and reads the stream after each. */
async function decodePieceByPiece(stream: RecognitionStream, samples: Int16Array): Promise<Heard[]> {
  const heard: Heard[] = [];
  for (let at = 0; at < samples.length; at += PIECE) {
    stream.write(samples.subarray(at, at + PIECE));
    const deadline = performance.now() + 20_000;
    while ((stream.behindMs ?? 0) > 0 && performance.now() < deadline) await sleep(2);
    heard.push({
      atMs: Math.min(at + PIECE, samples.length) / 16,
      partial: stream.partial,
      unrecognizedSpeechMs: stream.unrecognizedSpeechMs,
    });
  }
  return heard;
}

/** The clip with `pauseMs` of silence stretched in at `atSeconds`. */
function withPause(samples: Int16Array, atSeconds: number, pauseMs: number): Int16Array {
  const at = Math.round(atSeconds * 16000);
  return concat(samples.subarray(0, at), silenceMs(pauseMs), samples.subarray(at));
}

describe("PocketsphinxRecognitionStream.unrecognizedSpeechMs: speech after the partial's last word that the decoder made no word of", function () {
  this.timeout(120_000);
  let recognizer: PocketsphinxSpeechRecognizer;
  before(async () => (recognizer = await PocketsphinxSpeechRecognizer.create({ decoders: 1, warmDecoders: 1 })));
  after(() => recognizer.close());
  const open = () => recognizer.openStream({ language: 'en', principal, speaker: {}, sampleRate: 16000 }, new AbortController().signal);

  it('reports the creaky last word it did not decode ("... to do for [them]"), kept current while the words stay the same', async () => {
    const clip = librivoxClip('0870');
    const stream = open();
    expect(stream.unrecognizedSpeechMs, 'nothing decoded yet').to.equal(undefined);
    const heard = await decodePieceByPiece(stream, concat(clip.samples, silenceMs(1000)));
    await stream.finish();
    const last = heard.at(-1)!;
    const clipMs = clip.samples.length / 16;
    // The live partial ends on "for" (an unfinished word): without this figure semantic_vad would wait 1.5 s more.
    expect(last.partial).to.match(/ for$/);
    expect(last.unrecognizedSpeechMs).to.be.at.least(MIN_UNRECOGNIZED_SPEECH_MS);
    // While the words were still being said it was 0: nothing the decoder could not make a word of.
    expect(heard.filter((h) => h.atMs <= clipMs - 1000).every((h) => h.unrecognizedSpeechMs === 0)).to.equal(true);
    // It grew while the partial stayed "... for": the bare acknowledgements carry it too.
    const grew = heard.findIndex((h, i) => i > 0 && h.unrecognizedSpeechMs! > heard[i - 1]!.unrecognizedSpeechMs!);
    expect(grew, 'it grows').to.be.greaterThan(0);
    expect(heard[grew]!.partial).to.equal(heard[grew - 1]!.partial);
    // The silence after the speech adds nothing.
    const afterSpeech = heard.filter((h) => h.atMs >= clipMs + 200).map((h) => h.unrecognizedSpeechMs);
    expect(new Set(afterSpeech).size, String(afterSpeech)).to.equal(1);
  });

  it('reports none after a recognized last word, nor at a pause in the middle of a sentence', async () => {
    const ended = open();
    const atEnd = await decodePieceByPiece(ended, concat(librivoxClip('0880').samples, silenceMs(1000)));
    await ended.finish();
    expect(atEnd.at(-1)!.partial).to.match(/ man$/);
    // The recording's own noise after its last word is not counted against the digital silence that follows.
    expect(atEnd.map((h) => h.unrecognizedSpeechMs)).to.satisfy((all: number[]) => all.every((ms) => ms < MIN_UNRECOGNIZED_SPEECH_MS));
    // "had he married a more amiable woman | he might have been made ...": 600 ms of silence after "woman".
    const paused = open();
    const heard = await decodePieceByPiece(paused, withPause(librivoxClip('0920').samples, 2.49, 600));
    await paused.finish();
    const inPause = heard.filter((h) => h.atMs > 2490 + 150 && h.atMs <= 2490 + 600);
    expect(inPause).to.have.length.of.at.least(3);
    for (const h of inPause) expect(h.unrecognizedSpeechMs, `${h.atMs} ms: "${h.partial}"`).to.be.below(MIN_UNRECOGNIZED_SPEECH_MS);
  });

  it('reports the voice of a soft last word that noise suppression turned down and the decoder took for silence', async () => {
    // "... to do for [them]": suppressed, the creaky "them" is no [SPEECH] but the end of the sentence.
    const clip = librivoxClip('0870');
    const clipMs = clip.samples.length / 16;
    const stream = open();
    const heard = await decodePieceByPiece(stream, concat(noiseSuppressed(clip.samples), suppressedRoom(1000)));
    await stream.finish();
    expect(heard.at(-1)!.partial).to.match(/ for$/);
    expect(heard.filter((h) => h.atMs <= clipMs - 1000).every((h) => h.unrecognizedSpeechMs! < MIN_UNRECOGNIZED_SPEECH_MS)).to.equal(true);
    // Reported once the voice has stopped, in time for the pause that judges the turn (about 0.2 s after the voice).
    const soon = heard.find((h) => h.atMs >= clipMs + 300)!;
    expect(soon.unrecognizedSpeechMs, `${soon.atMs} ms`).to.be.at.least(MIN_UNRECOGNIZED_SPEECH_MS);
  });
});
