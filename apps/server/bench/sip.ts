import { readFileSync, rmSync } from 'node:fs';
import type { SipCall } from '@svc/adapters-sip';
import { librivoxSentences, type LibrivoxSentence } from '../test/helpers/librivox.js';
import { hasBaresip, placeCall, rms, telephoneRate, type BaresipCall } from '../test/helpers/baresip.js';
import { startSipServer } from '../test/helpers/sip-server.js';
import { percentile, round } from './harness.js';

/** Concurrent calls tried, one round each. */
const LEVELS = [1, 2, 4, 8];
/** Sentences each caller says, one turn each, with room for the reply between them. */
const TURNS = 3;
const GAP_SECONDS = 12;
/** 20 ms at 8 kHz: a G.711 packet, the unit of the phone's recording. */
const PACKET = 160;
/** A 20 ms frame this loud is sound (speech), not silence or the codec's idle pattern. */
const SOUND_RMS = 300;
/** The realtime load bench's rule: a level is held while p95 stays under this. */
const HELD_P95_MS = 500;
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** The index of the first 20 ms frame at or after `from` (in frames) that is sound, or -1. */
function firstSound(samples: Int16Array, from: number): number {
  for (let i = from; (i + 1) * PACKET <= samples.length; i++) if (rms(samples.subarray(i * PACKET, (i + 1) * PACKET)) > SOUND_RMS) return i;
  return -1;
}

/** Where (seconds into the microphone) each turn's speech ends: its sentence's last sound. */
function microphoneOf(sentences: LibrivoxSentence[]): { samples: Int16Array; speechEnds: number[] } {
  const parts = sentences.map((s) => telephoneRate(s.samples));
  const samples = new Int16Array(parts.reduce((n, p) => n + p.length + GAP_SECONDS * 8000, 0));
  const speechEnds: number[] = [];
  let at = 0;
  for (const part of parts) {
    samples.set(part, at);
    let last = Math.floor(part.length / PACKET) - 1;
    while (last > 0 && rms(part.subarray(last * PACKET, (last + 1) * PACKET)) <= SOUND_RMS) last--;
    speechEnds.push((at + (last + 1) * PACKET) / 8000);
    at += part.length + GAP_SECONDS * 8000;
  }
  return { samples, speechEnds };
}

/**
 * One call watched from the server's side: when each reply started (in packets sent before it), and
 * the wall time each packet left (replies and the silence between them), so that a packet's index
 * in the phone's recording maps to when it left.
 */
function watch(call: SipCall): { replyStarts: number[]; speechStops: number[]; sentAt(packet: number): number } {
  const replyStarts: number[] = [];
  const speechStops: number[] = [];
  const sent: number[] = [];
  call.onEvent((e) => {
    if (e.type === 'output_audio_buffer.started') replyStarts.push(call.rtp.packetsSent);
    if (e.type === 'input_audio_buffer.speech_stopped') speechStops.push(performance.now());
  });
  const timed = (send: () => void) => {
    const before = call.rtp.packetsSent;
    send();
    if (call.rtp.packetsSent > before) sent.push(performance.now());
  };
  const sendFrame = call.rtp.sendFrame.bind(call.rtp);
  const sendSilence = call.rtp.sendSilence.bind(call.rtp);
  call.rtp.sendFrame = (frame, marker) => timed(() => sendFrame(frame, marker));
  call.rtp.sendSilence = () => timed(sendSilence);
  return {
    replyStarts,
    speechStops,
    sentAt: (packet) => sent[packet] ?? Infinity,
  };
}

/**
 * `npm run bench -- sip`: real phones (baresip) call the service over loopback, 1, 2, 4 and 8 at
 * once, each saying three LibriVox sentences with 12 s between them. Per turn, from the caller's
 * side: from the end of its speech (its sentence's last sound; the microphone starts with the
 * call's first audio packet) to the first sound of the reply in what the phone recorded (a 20 ms
 * frame above the silence level; the phone records every packet it decodes, so a frame's index in
 * the recording is the packet's index, and the packet's send time is known). p50 / p95 per level,
 * and the largest level whose p95 stays under 500 ms (the realtime load bench's rule).
 */
export async function benchSip(): Promise<Record<string, number | string>> {
  if (!hasBaresip()) return { skipped: 'baresip is not installed (bash scripts/setup-test-sip.sh)' };
  const out: Record<string, number | string> = { 'load average at start (1/5/15 min)': loadAverage() };
  const { t, dataDir } = await startSipServer({
    SVC_REALTIME_MAX_SESSIONS: '64',
    SVC_REALTIME_MAX_SESSIONS_PER_KEY: '64',
    SVC_SIP_INVITE_BURST: '64',
  });
  const sentences = librivoxSentences();
  let held = 0;
  try {
    for (const n of LEVELS) {
      const calls: Array<{ call: SipCall; watched: ReturnType<typeof watch> }> = [];
      const stop = t.server.sip!.server.onCallAnswered((call) => calls.push({ call, watched: watch(call) }));
      const port = t.server.sip!.server.address.port;
      const phones: Array<{ phone: BaresipCall; speechEnds: number[]; seconds: number }> = [];
      // one at a time, each answered before the next is placed: call i is phone i
      for (let i = 0; i < n; i++) {
        const { samples, speechEnds } = microphoneOf(Array.from({ length: TURNS }, (_, k) => sentences[(i + k) % sentences.length]!));
        phones.push({
          phone: await placeCall({ host: '127.0.0.1', port, microphone: samples }),
          speechEnds,
          seconds: samples.length / 8000,
        });
        const deadline = performance.now() + 20_000;
        while (calls.length <= i && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        if (calls.length <= i) break;
      }
      stop();
      // the longest microphone to its end (its last gap is room for the last reply)
      const longest = Math.max(...phones.map((p) => p.seconds));
      await new Promise((r) => setTimeout(r, longest * 1000 + 2000));
      const latencies: number[] = [];
      const serverSide: number[] = [];
      let turns = 0;
      for (let i = 0; i < phones.length; i++) {
        const { phone, speechEnds } = phones[i]!;
        await phone.stop();
        const watched = calls[i];
        if (!watched || watched.call.rtp.firstAudioAt === null) continue;
        const heard = phone.heard();
        const { replyStarts, speechStops, sentAt } = watched.watched;
        // when each reply's first sound left; each turn's latency is to the first one after its speech ended
        const sounds = replyStarts.flatMap((start, k) => {
          const sound = firstSound(heard, start);
          return sound < 0 || (replyStarts[k + 1] !== undefined && sound >= replyStarts[k + 1]!) ? [] : [sentAt(sound)];
        });
        const speechEndsAt = speechEnds.map((s) => watched.call.rtp.firstAudioAt! + s * 1000);
        speechEndsAt.forEach((end, k) => {
          const reply = sounds.find((at) => at > end && at < (speechEndsAt[k + 1] ?? Infinity));
          if (reply === undefined) return;
          turns++;
          latencies.push(reply - end);
          // the server's own view of the same turn: its VAD's end of speech to that reply sound leaving
          const stopped = speechStops.findLast((at) => at < reply);
          if (stopped !== undefined) serverSide.push(reply - stopped);
        });
        phone.cleanup();
      }
      out[`${n} call(s): answered; turns with a reply heard`] = `${calls.length}/${n}; ${turns}/${n * TURNS}`;
      if (latencies.length > 0) {
        const p95 = percentile(latencies, 95);
        out[`${n} call(s): end of the caller's speech -> first reply sound it recorded, p50 / p95 (ms)`] =
          `${round(percentile(latencies, 50))} / ${round(p95)}`;
        out[`${n} call(s): the same turns from speech_stopped (the server's VAD), p50 / p95 (ms)`] =
          `${round(percentile(serverSide, 50))} / ${round(percentile(serverSide, 95))}`;
        const previous = LEVELS[LEVELS.indexOf(n) - 1] ?? 0;
        if (p95 < HELD_P95_MS && turns === n * TURNS && held === previous) held = n;
      }
      out[`${n} call(s): load average after`] = loadAverage();
    }
    out[`calls held (p95 < ${HELD_P95_MS} ms, every turn replied)`] = held;
  } finally {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}
