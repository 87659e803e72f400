import { isAbsolute, join, resolve } from 'node:path';

/** The model directory: SVC_MODELS_DIR (relative to the working directory) or `<dataDir>/models`. */
export function modelsDirOf(setting: string, dataDir: string): string {
  if (!setting) return join(dataDir, 'models');
  return isAbsolute(setting) ? setting : resolve(process.cwd(), setting);
}
