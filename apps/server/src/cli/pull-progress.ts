import { megabytes, type PullEvents, type RemoteFile } from '@svc/adapters-speech-synthesis';

type Out = (line: string) => void;

const BAR = 24;

/**
 * What `models pull` shows while it downloads: on a terminal one bar per file redrawn in place
 * (percent, MB, rate); elsewhere (logs, CI) one line when a file starts and one when it is done.
 */
export function pullProgress(out: Out, terminal: { write(text: string): void } | null): PullEvents {
  let started = 0;
  let startBytes = 0;
  let lastDraw = 0;
  const draw = (file: RemoteFile, bytes: number, force = false) => {
    const now = performance.now();
    if (!terminal || (!force && now - lastDraw < 100)) return;
    lastDraw = now;
    const share = file.size > 0 ? bytes / file.size : 1;
    const filled = Math.round(share * BAR);
    const rate = (bytes - startBytes) / Math.max(0.001, (now - started) / 1000);
    terminal.write(
      `\r  ${file.path}  [${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}] ${(share * 100).toFixed(0).padStart(3)}%  ${megabytes(bytes)} / ${megabytes(file.size)}  ${megabytes(rate)}/s\u001b[K`,
    );
  };
  return {
    onPlan: (plan) =>
      out(
        `pulling ${plan.name} from ${plan.repo}@${plan.revision} (commit ${plan.commit.slice(0, 12)}): ${plan.files.length} files, ${megabytes(plan.bytes)}`,
      ),
    onFile: (file, have) => {
      started = performance.now();
      startBytes = have;
      if (terminal) draw(file, have, true);
      else out(`  ${file.path} (${megabytes(file.size)}${have > 0 ? `, resuming at ${megabytes(have)}` : ''})`);
    },
    onBytes: (file, bytes) => {
      draw(file, bytes, bytes === file.size);
      if (bytes === file.size) {
        if (terminal) terminal.write('\n');
        else out(`  ${file.path} done`);
      }
    },
    onRetry: (file, reason, bytes) => {
      if (terminal) terminal.write('\n');
      out(`  ${file.path}: ${reason}; resuming at ${megabytes(bytes)}`);
    },
  };
}
