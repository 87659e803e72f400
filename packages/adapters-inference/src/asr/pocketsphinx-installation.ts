import { constants } from 'node:fs';
import { access } from 'node:fs/promises';

/** Debian's `pocketsphinx` package. */
export const POCKETSPHINX_BINARY = '/usr/bin/pocketsphinx_continuous';
/** Debian's `pocketsphinx-en-us` package: the binary's default model, which it cannot run without. */
export const POCKETSPHINX_EN_US_MODEL = '/usr/share/pocketsphinx/model/en-us/en-us';

/** Fails with what to do about it when the recognizer or its English model is not installed. */
export async function assertPocketsphinxInstalled(binary: string, modelDir: string | null): Promise<void> {
  try {
    await access(binary, constants.X_OK);
  } catch {
    throw new Error(
      `pocketsphinx is not installed (${binary} is missing or not executable): run \`npm run setup\` (scripts/setup-system.sh installs pocketsphinx and pocketsphinx-en-us).`,
    );
  }
  if (modelDir === null) return;
  try {
    await access(modelDir, constants.R_OK);
  } catch {
    throw new Error(
      `The pocketsphinx English model is missing (${modelDir}): run \`npm run setup\` (scripts/setup-system.sh installs pocketsphinx-en-us).`,
    );
  }
}
