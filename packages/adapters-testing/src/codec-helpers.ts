// Helpers for the codec tests (not a test file itself).

export function sine(hz: number, rate: number, secondsLong: number, amplitude = 8000): Int16Array {
  const out = new Int16Array(Math.round(rate * secondsLong));
  for (let i = 0; i < out.length; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate));
  return out;
}

export async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts);
}

/** True while a process with this pid exists (signal 0 only checks). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Fails if the process is still there after `ms`. */
export async function waitUntilGone(pid: number, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (isRunning(pid)) {
    if (Date.now() > deadline) throw new Error(`ffmpeg pid ${pid} is still running`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
