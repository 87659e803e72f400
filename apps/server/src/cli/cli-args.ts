import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true }>>;

/** Exit code of a CLI called the wrong way (as most Unix tools do). */
export const USAGE_EXIT_CODE = 2;

/**
 * The arguments of one CLI, with `--help` / `-h` added to its options: either what was parsed, or
 * the exit code once the usage is printed (0 for help, USAGE_EXIT_CODE with the reason for an
 * unknown flag or a flag missing its value). Node's parser throws with a stack otherwise.
 */
export function parseCliArgs<O extends Options>(
  argv: string[],
  options: O,
  usage: string,
  out: (line: string) => void,
): { args: Parsed<O> } | { exit: number } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { ...options, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    out(`error: ${(err as Error).message.split('. ')[0]}.`);
    out(usage);
    return { exit: USAGE_EXIT_CODE };
  }
  if ((parsed.values as { help?: boolean }).help) {
    out(usage);
    return { exit: 0 };
  }
  return { args: parsed as unknown as Parsed<O> };
}

/**
 * Runs a CLI as the process's main: exits with its code, and on a failure (a database that does
 * not answer, a file that cannot be read) prints `<name> failed: <message>` on stderr and exits 1,
 * without the stack a person at a terminal cannot use.
 */
export function runCliMain(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => exitWhenWritten(code),
    (err: unknown) => {
      process.stderr.write(`${name} failed: ${err instanceof Error ? err.message : String(err)}\n`);
      exitWhenWritten(1);
    },
  );
}

/**
 * Exits once stdout and stderr have handed on all that was written to them. Writes to a pipe are
 * queued in Node while the reader is behind (a pipe may hold a single page), and `process.exit`
 * drops the queue: a long `keys list --json` read by a slow reader lost everything past 4 KiB.
 */
function exitWhenWritten(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}
