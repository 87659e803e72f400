import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { concat, whiteNoise } from '@svc/adapters-testing';
import { MIC_CLIP } from './librivox.js';
import { wavFile } from './wav.js';

/** Debian's Chromium, installed by scripts/setup-test-browser.sh (npm test); playwright-core downloads no browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** Where screenshots go (gitignored): <repo>/test-artifacts/playground. */
export const ARTIFACTS_DIR = resolve(fileURLToPath(new URL('../../../../../test-artifacts/playground', import.meta.url)));

export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run bash scripts/setup-test-browser.sh (npm test runs it)`);
  if (!existsSync(MIC_CLIP)) throw new Error(`${MIC_CLIP} is missing: run npm run setup (scripts/setup-system.sh)`);
}

/**
 * The fake microphone's file: 1 s of quiet, the reader's sentence, then 7 s of quiet. Chromium
 * loops it from the page's getUserMedia, so a voice-activity detector sees one clear turn every ~11 s
 * with room for a reply. (A WebRTC call opens the microphone when it connects, muted until the
 * button is pressed: a test that presses it at once may land mid-sentence, see FIRST_QUIET_AFTER_MS.) The
 * quiet is a room's noise floor (-60 dBFS), as a real microphone gives, not digital zeros: on zeros,
 * Chromium's audio processing had not settled by the first sentence, whose end then read as a
 * rising voice over the WebSocket (semantic_vad waited 1.2 s in 2 of 2 tries; 0 of 5 with the floor).
 */
export function micClip(): Int16Array {
  const wav = readFileSync(MIC_CLIP);
  const speech = wav.subarray(wav.indexOf('data') + 8);
  const sentence = new Int16Array(speech.buffer.slice(speech.byteOffset, speech.byteOffset + speech.length));
  return concat(roomNoise(1000), sentence, roomNoise(7000, 777));
}

/**
 * When the fake microphone's file is first in its quiet after the sentence (ms from getUserMedia):
 * its 1 s of quiet and the ~2.7 s sentence, with a margin. A user presses the microphone button and
 * then speaks; a WebRTC test that presses it at once lands in or just before the sentence, which
 * then ends within ~2 s of the unmute, and semantic_vad waited 1.2 s on it in 5 of 7 tries
 * (docs/playground.md).
 */
export const FIRST_QUIET_AFTER_MS = 4500;

/** `ms` of the fake microphone's quiet (16 kHz): a room's noise floor at -60 dBFS, seeded. */
export function roomNoise(ms: number, seed?: number): Int16Array {
  return whiteNoise(ms, 30, 16000, seed);
}

/** Writes the fake microphone's file (16 kHz mono): `pcm`, or the reader's sentence above. */
export function writeMicWav(dir: string, pcm: Int16Array = micClip()): string {
  const path = join(dir, 'fake-mic.wav');
  writeFileSync(path, wavFile(pcm, 16000));
  return path;
}

export interface TestBrowser {
  browser: Browser;
  /** A context whose origin may use the (fake) microphone. */
  newContext(origin: string, viewport?: { width: number; height: number }): Promise<BrowserContext>;
  close(): Promise<void>;
}

/**
 * Headless Chromium as root (--no-sandbox) with every background service off: the machine's
 * network is closed, and Chromium's own connections would show up as refused requests. Its
 * microphone is a WAV of real speech (`mic`, 16 kHz mono, looped; the reader's sentence unless
 * given), granted without a prompt.
 */
export async function launchBrowser(mic?: Int16Array): Promise<TestBrowser> {
  requireChromium();
  const dir = mkdtempSync(join(tmpdir(), 'svc-browser-'));
  const micWav = writeMicWav(dir, mic);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--autoplay-policy=no-user-gesture-required',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${micWav}`,
    ],
  });
  return {
    browser,
    async newContext(origin, viewport = { width: 1280, height: 900 }) {
      const context = await browser.newContext({ viewport, acceptDownloads: true });
      await context.grantPermissions(['microphone'], { origin });
      return context;
    },
    async close() {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PageProblems {
  consoleErrors: string[];
  failedRequests: string[];
  foreignRequests: string[];
  /** Streamed fetches read to their end that Chromium still reports as aborted (see below). */
  streamsReportedAborted: string[];
}

/** Records what a user would never want to see: console errors, failed and foreign-origin requests. */
export function watchPage(page: Page, origin: string): PageProblems {
  const problems: PageProblems = { consoleErrors: [], failedRequests: [], foreignRequests: [], streamsReportedAborted: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') problems.consoleErrors.push(m.text());
  });
  page.on('pageerror', (err) => problems.consoleErrors.push(`uncaught: ${err.message}`));
  page.on('requestfailed', (r) => {
    // blob: URLs are the page's own memory (recorded clips, downloads); media elements cancel
    // and re-request their ranges as they buffer, which Chromium reports as aborted.
    if (r.url().startsWith('blob:')) return;
    const failure = r.failure()?.errorText ?? '';
    // Chromium reports a fetch whose body a page read to EOF with getReader() (streamed pcm) as
    // net::ERR_ABORTED (playwright issue 42742). Such a request got its 200 answer; the tests
    // check that the page received the whole stream. Anything else is a real failure.
    void r.response().then((res) => {
      if (failure === 'net::ERR_ABORTED' && res?.status() === 200 && r.resourceType() === 'fetch') {
        problems.streamsReportedAborted.push(r.url());
      } else {
        problems.failedRequests.push(`${r.method()} ${r.url()} ${failure}`);
      }
    });
  });
  const wsOrigin = origin.replace(/^http/, 'ws');
  page.on('websocket', (ws) => {
    if (!ws.url().startsWith(wsOrigin)) problems.foreignRequests.push(ws.url());
  });
  page.on('request', (r) => {
    const url = r.url();
    if (url.startsWith('data:') || url.startsWith('blob:')) return;
    if (!url.startsWith(origin)) problems.foreignRequests.push(url);
  });
  return problems;
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage });
  return path;
}

// Runs in the browser (no DOM library in the server's compilation).
declare const document: unknown;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AccessibilityViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * WCAG 2.1 A/AA checks of what is on screen (labels, names, contrast, ARIA use) by axe-core, run
 * inside the page. page.evaluate is not subject to the page's CSP, so the same-origin policy
 * stays on while it runs.
 */
export async function accessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(
            ctx: unknown,
            opts: unknown,
          ): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
}

// page.evaluate bodies run in the browser.
declare const window: { __events: any[] };

/** Polls the page's `window.__events` until one matches (the page may forbid eval: no waitForFunction). */
export async function waitForPageEvent(page: Page, predicate: (e: any) => boolean, timeout = 30_000): Promise<any> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const events: any[] = await page.evaluate(() => window.__events);
    const found = events.find(predicate);
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${predicate.toString()}; events: ${events.map((e) => e.type).join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
