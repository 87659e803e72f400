import { createRequire } from 'node:module';

let cached: string | null = null;

/**
 * The static ffmpeg binary shipped by @ffmpeg-installer/ffmpeg (ffmpeg-static cannot install
 * offline). `FFMPEG_PATH` overrides it, e.g. to use a distribution's ffmpeg.
 */
export function ffmpegPath(): string {
  if (process.env.FFMPEG_PATH) return process.env.FFMPEG_PATH;
  if (!cached) {
    const installer = createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string };
    cached = installer.path;
  }
  return cached;
}
