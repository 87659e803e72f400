import { loadavg } from 'node:os';
import { OpusscriptOpusCodec } from '@svc/adapters-media';
import { PocketsphinxSpeechRecognizer } from '@svc/adapters-speech-recognition';
import { resampleInt16 } from '@svc/adapters-runtime';
import { librivoxSentences } from '../test/helpers/librivox.js';
import { wordErrorRate } from '../test/helpers/wer.js';
import { round } from './harness.js';
import { childrenCpuMs } from '../src/runtime/process-cpu.js';

/** One conversation: its turns (16 kHz samples) and what was said. */
interface Conversation {
  label: string;
  turns: Int16Array[];
  words: string;
}

/** A realtime session writes 20-100 ms appends; the recognizer cuts them into its 100 ms pieces. */
const WRITE_SAMPLES = 320;
const PRINCIPAL = { apiKeyId: 'bench', name: 'bench' };

/**
 * `npm run bench -- decoder`: the pocketsphinx decoders alone (no server), driven as a realtime
 * session drives them: each conversation is one speaker (its turns share the speaker
 * normalization), every turn streamed in 20 ms writes (100 ms pieces, a partial after each), then
 * the final pass. Per decoder variant (`SVC_BENCH_DECODER_VARIANTS`: option lists separated by
 * `;`, each added after the server's own options; an empty one is the server's settings; by default
 * also the wider search used before 2026-11-26, `-maxhmmpf 3000 -maxwpf -1 -wbeam 7e-29`), the
 * decoder CPU per second of audio (best and median of `SVC_BENCH_DECODER_ROUNDS`, default 3, the
 * variants interleaved so the machine's load falls on all alike) and the word errors on the five
 * LibriVox sentences as 16 kHz PCM and as Opus (48 kHz, 20 ms packets, decoded and resampled as the
 * server does). "carried over": whether a turn is recognized the same on a decoder that has just
 * decoded another caller's conversation as on a fresh one (it must be: a pooled decoder serves
 * callers in any order).
 */
export async function benchDecoder(): Promise<Record<string, number | string>> {
  const variants = (process.env.SVC_BENCH_DECODER_VARIANTS ?? ';-maxhmmpf 3000 -maxwpf -1 -wbeam 7e-29').split(';').map((v) => v.trim());
  const rounds = Number(process.env.SVC_BENCH_DECODER_ROUNDS ?? 3);
  const conversations = await librivoxConversations();
  const audioSeconds = conversations.reduce((s, c) => s + c.turns.reduce((t, turn) => t + turn.length / 16000, 0), 0);
  const out: Record<string, number | string> = {
    'load average at start': round(loadavg()[0]!, 1),
    'audio per round (s)': round(audioSeconds, 1),
  };
  const recognizers = await Promise.all(
    variants.map((v) => PocketsphinxSpeechRecognizer.create({ decoders: 1, warmDecoders: 1, extraArgs: v ? v.split(/\s+/) : [] })),
  );
  try {
    const cpu: number[][] = variants.map(() => []);
    const heard: string[][] = variants.map(() => []);
    for (let round_ = 0; round_ < rounds; round_++) {
      for (let v = 0; v < variants.length; v++) {
        const before = childrenCpuMs(process.pid);
        const texts: string[] = [];
        for (const conversation of conversations) texts.push((await converse(recognizers[v]!, conversation.turns)).join(' '));
        cpu[v]!.push((childrenCpuMs(process.pid) - before) / 1000 / audioSeconds);
        heard[v] = texts;
      }
    }
    for (let v = 0; v < variants.length; v++) {
      const label = variants[v] || 'server settings';
      const sorted = [...cpu[v]!].sort((a, b) => a - b);
      out[`${label}: decoder CPU per second of audio, best / median`] =
        `${round(sorted[0]!, 3)} / ${round(sorted[Math.floor(sorted.length / 2)]!, 3)}`;
      for (let c = 0; c < conversations.length; c++) {
        const conversation = conversations[c]!;
        const text = heard[v]![c]!;
        const errors = Math.round(wordErrorRate(conversation.words, text) * conversation.words.split(' ').length);
        out[`${label}: ${conversation.label} errors (${conversation.words.split(' ').length} words)`] = errors;
        out[`${label}: ${conversation.label} heard`] = text;
      }
      // The Opus conversation once more on this decoder, which has just decoded the others: as on a fresh one?
      const again = (await converse(recognizers[v]!, conversations[conversations.length - 1]!.turns)).join(' ');
      out[`${label}: carried over (same turns after other callers, same words)`] =
        again === heard[v]![conversations.length - 1] ? 'no' : `YES: "${again}"`;
    }
    out['load average at end'] = round(loadavg()[0]!, 1);
    return out;
  } finally {
    for (const r of recognizers) r.close();
  }
}

/** One caller's turns through the recognizer, each streamed in then finished: the transcripts. */
async function converse(recognizer: PocketsphinxSpeechRecognizer, turns: Int16Array[]): Promise<string[]> {
  const speaker = {};
  const texts: string[] = [];
  for (const turn of turns) {
    const stream = recognizer.openStream(
      { language: null, principal: PRINCIPAL, speaker, sampleRate: 16000 },
      new AbortController().signal,
    );
    for (let at = 0; at < turn.length; at += WRITE_SAMPLES) stream.write(turn.subarray(at, at + WRITE_SAMPLES));
    texts.push((await stream.finish()).text);
  }
  return texts;
}

/** The five LibriVox sentences as 16 kHz PCM, and as a caller's Opus (48 kHz, 20 ms packets) decoded back to 16 kHz. */
async function librivoxConversations(): Promise<Conversation[]> {
  const sentences = librivoxSentences();
  const opus = new OpusscriptOpusCodec();
  const words = sentences.map((s) => s.words).join(' ');
  const viaOpus: Int16Array[] = [];
  for (const s of sentences) {
    const encoder = opus.createEncoder(20);
    const packets = [...encoder.encode(resampleInt16(s.samples, 16000, 48000)), ...encoder.flush()];
    const decoded = await opus.decode(packets, 20);
    viaOpus.push(resampleInt16(decoded.samples, 48000, 16000));
  }
  return [
    { label: 'LibriVox pcm 16 kHz', turns: sentences.map((s) => s.samples), words },
    { label: 'LibriVox opus', turns: viaOpus, words },
  ];
}
