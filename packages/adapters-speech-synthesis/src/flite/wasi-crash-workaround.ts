import { setFlagsFromString } from 'node:v8';

let applied = false;

/**
 * Works around the node:wasi crash behind Node issues 52402 / 53087: with V8 "fast API calls",
 * WASI syscalls keep using the WASM memory buffer they first saw, so once flite's memory grows
 * (every call of a few seconds of audio does) later syscalls write into freed memory. In this
 * repository's Node 20 that segfaulted the whole process after a few dozen flite calls, in worker
 * threads as well (a segfault is process-wide). With fast API calls off, 600 calls in a row ran
 * clean. The flag is process-wide and only costs a little speed on other native fast calls; it is
 * set once, before any WASI instance exists.
 */
export function disableFastApiCallsForWasi(): void {
  if (applied) return;
  setFlagsFromString('--no-turbo-fast-api-calls');
  applied = true;
}
