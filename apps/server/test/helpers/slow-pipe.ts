import { spawnSync } from 'node:child_process';

/**
 * What `command` writes to stdout when its reader is a pipe of one page (4 KiB) that is read only
 * after a pause. A pipe past the user's pipe-page limit holds one page; a process that writes more
 * must wait for its reader, and one that exits without waiting loses what Node still held.
 */
export function readThroughOnePagePipe(command: string[], env: NodeJS.ProcessEnv = process.env): string {
  const script = [
    'import fcntl, os, subprocess, sys, time',
    'r, w = os.pipe()',
    'fcntl.fcntl(w, 1031, 4096)', // F_SETPIPE_SZ
    'p = subprocess.Popen(sys.argv[1:], stdout=w, stderr=subprocess.DEVNULL)',
    'os.close(w)',
    'time.sleep(1.5)',
    'data = b""',
    'while True:',
    '    chunk = os.read(r, 65536)',
    '    if not chunk: break',
    '    data += chunk',
    'p.wait()',
    'sys.stdout.write(data.decode())',
  ].join('\n');
  return spawnSync('python3', ['-c', script, ...command], { encoding: 'utf8', env }).stdout;
}
