import { runModelsCli } from '../../src/cli/models.js';

/** `npm run models -- ...` in-process on a data directory: its exit code and printed lines. */
export async function modelsCli(dataDir: string, ...args: string[]): Promise<{ code: number; out: string }> {
  return modelsCliWithEnv({ SVC_DATA_DIR: dataDir }, ...args);
}

/** The same with the environment given (e.g. HF_ENDPOINT for `pull`). */
export async function modelsCliWithEnv(env: Record<string, string>, ...args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await runModelsCli(args, (l) => lines.push(l), env);
  return { code, out: lines.join('\n') };
}
