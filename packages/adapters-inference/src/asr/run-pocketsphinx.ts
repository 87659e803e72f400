import { spawn } from 'node:child_process';
import { abortError, throwIfAborted } from '../speech/abort.js';

/** Keeps the end of stderr for error messages without buffering a runaway log. */
const STDERR_TAIL_CHARS = 2000;

/**
 * Runs `pocketsphinx_continuous` on a 16 kHz mono s16 WAV file and returns its hypothesis: one line
 * per utterance its own endpointer found, joined by spaces. Settles only once the process has
 * exited, so after an abort no child is left behind when the promise rejects.
 */
export function runPocketsphinx(binary: string, wavPath: string, extraArgs: readonly string[], signal?: AbortSignal): Promise<string> {
  throwIfAborted(signal);
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['-infile', wavPath, '-logfn', '/dev/null', ...extraArgs], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-STDERR_TAIL_CHARS)));
    const onAbort = (): void => {
      child.kill('SIGKILL');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let spawnError: Error | null = null;
    child.on('error', (err) => (spawnError = err));
    child.on('close', (code, killedBy) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) return reject(abortError(signal));
      if (spawnError) return reject(new Error(`pocketsphinx could not start (${binary}): ${spawnError.message}`));
      if (code !== 0) {
        return reject(new Error(`pocketsphinx failed (${killedBy ?? `exit code ${code}`}): ${stderr.trim() || 'no output on stderr'}`));
      }
      resolve(stdout.split('\n').map((line) => line.trim()).filter(Boolean).join(' '));
    });
  });
}
