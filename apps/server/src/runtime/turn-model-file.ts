import { isAbsolute, join, resolve } from 'node:path';
import { turnModelInFolder } from '@svc/adapters-speech-recognition';

/**
 * SVC_TURN_MODEL: a path to an `.onnx` file (relative to the working directory), or the name of a
 * model pulled into the model directory (`npm run models -- pull smart-turn-v3.2`). Names the
 * folder and the pull command when there is nothing there.
 */
export async function turnModelFile(setting: string, modelsDir: string): Promise<string> {
  if (setting.endsWith('.onnx')) return isAbsolute(setting) ? setting : resolve(process.cwd(), setting);
  const folder = join(modelsDir, setting);
  const file = await turnModelInFolder(folder);
  if (!file)
    throw new Error(
      `Invalid configuration SVC_TURN_MODEL: no Smart Turn model (smart-turn*.onnx) in ${folder} (pull it with \`npm run models -- pull ${setting}\`, or name an .onnx file)`,
    );
  return file;
}
