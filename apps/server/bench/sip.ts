import { readFileSync, rmSync } from 'node:fs';
import type { SipCall } from '@svc/adapters-sip';
import { librivoxSentences } from '../test/helpers/librivox.js';
import { hasBaresip, placeCall, telephoneRate, type BaresipCall } from '../test/helpers/baresip.js';
import { startSipServer } from '../test/helpers/sip-server.js';
import { percentile, round } from './harness.js';

/** Concurrent calls tried, one round each. */
const LEVELS = [1, 2, 4, 8];
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Resolves with when the call's first reply packet left (output_audio_buffer.started), or null. */
function firstReply(call: SipCall, timeoutMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    const deadline = setTimeout(() => resolve(null), timeoutMs);
    call.onEvent((e) => {
      if (e.type !== 'output_audio_buffer.started') return;
      clearTimeout(deadline);
      resolve(performance.now());
    });
  });
}

/**
 * `npm run bench -- sip`: real phones (baresip) call the service over loopback, each microphone a
 * LibriVox sentence then silence. For 1, 2, 4 and 8 calls at once: the time from the end of the
 * caller's speech (its first audio packet's arrival plus the sentence's length) to the first reply
 * packet sent, and how many calls got a reply within 30 s. Needs baresip (scripts/setup-test-sip.sh).
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
  try {
    for (const n of LEVELS) {
      const phones: BaresipCall[] = [];
      const latencies: Array<Promise<number | null>> = [];
      const stop = t.server.sip!.server.onCallAnswered((call) => {
        const sentence = sentences[latencies.length % sentences.length]!;
        latencies.push(
          firstReply(call, 30_000).then((at) => {
            if (at === null || call.rtp.firstAudioAt === null) return null;
            return at - (call.rtp.firstAudioAt + sentence.seconds * 1000);
          }),
        );
      });
      const port = t.server.sip!.server.address.port;
      for (let i = 0; i < n; i++) {
        const sentence = sentences[i % sentences.length]!;
        const microphone = new Int16Array(sentence.samples.length / 2 + 8000 * 40);
        microphone.set(telephoneRate(sentence.samples));
        phones.push(await placeCall({ host: '127.0.0.1', port, microphone }));
      }
      const deadline = performance.now() + 20_000;
      while (latencies.length < n && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const measured = (await Promise.all(latencies)).filter((x): x is number => x !== null);
      stop();
      out[`${n} call(s): answered / replied within 30 s`] = `${latencies.length}/${n} / ${measured.length}/${n}`;
      if (measured.length > 0)
        out[`${n} call(s): end of speech -> first reply packet p50 / max (ms)`] =
          `${round(percentile(measured, 50))} / ${round(Math.max(...measured))}`;
      out[`${n} call(s): load average after`] = loadAverage();
      for (const p of phones) {
        await p.stop();
        p.cleanup();
      }
    }
  } finally {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}
