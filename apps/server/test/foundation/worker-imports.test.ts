import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');

/** What a compiled module imports at run time: static imports and re-exports (not `import type`, gone at compile), and import(). */
function specifiersOf(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'|import\('([^']+)'\)/gm))
    found.push(m[1] ?? m[2] ?? m[3]!);
  return found;
}

/** The compiled file a specifier names: a relative path, or an @svc package's entry by its package.json exports; null for anything else. */
function resolveSpecifier(from: string, specifier: string): string | null {
  if (specifier.startsWith('.')) return resolve(dirname(from), specifier);
  const svc = /^@svc\/([^/]+)(\/.*)?$/.exec(specifier);
  if (!svc) return null;
  const pkgDir = join(ROOT, 'packages', svc[1]!);
  const exports = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).exports as Record<string, string>;
  const target = exports[svc[2] ? `.${svc[2]}` : '.'];
  if (!target) throw new Error(`${specifier} is not exported`);
  return join(pkgDir, target);
}

/** Every module a worker file loads, and the outside packages among them, following @svc packages through their exports. */
function reachable(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
      const target = resolveSpecifier(file, specifier);
      if (target) queue.push(target);
      else if (!specifier.startsWith('node:')) packages.add(specifier);
    }
  }
  return { files, packages };
}

function workerFiles(): string[] {
  return readdirSync(join(ROOT, 'packages')).flatMap((pkg) => {
    const dir = join(ROOT, 'packages', pkg, 'dist', 'src');
    if (!existsSync(dir)) return [];
    return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /-worker\.js$/.test(f)).map((f) => join(dir, f));
  });
}

const CORE_ENTRY = join(ROOT, 'packages', 'core', 'dist', 'src', 'index.js');
/** Threads whose job is ONNX inference (neural voices, seq2seq recognition, the face detector), started on first use: they load the runtime, and with it the core, on purpose. */
const ONNX_WORKERS = /onnx-model-worker\.js$|transformers-asr-worker\.js$|face-prepare-worker\.js$/;

describe('worker threads load only what they use (the idle footprint)', () => {
  const workers = workerFiles();

  it("finds the engine packages' worker files", () => {
    expect(workers.map((w) => relative(ROOT, w))).to.include.members([
      'packages/adapters-speech-synthesis/dist/src/flite/flite-worker.js',
      'packages/adapters-speech-synthesis/dist/src/models/espeak-phonemizer-worker.js',
      'packages/adapters-avatar/dist/src/frame-render-worker.js',
    ]);
  });

  it("no other worker thread loads the core's main entry (the whole domain), only what it names", () => {
    const offenders = workers.filter((w) => !ONNX_WORKERS.test(w) && reachable(w).files.has(CORE_ENTRY)).map((w) => relative(ROOT, w));
    expect(offenders).to.deep.equal([]);
  });

  it('only the ONNX inference threads load onnxruntime-node', () => {
    const offenders = workers
      .filter((w) => !ONNX_WORKERS.test(w) && reachable(w).packages.has('onnxruntime-node'))
      .map((w) => relative(ROOT, w));
    expect(offenders).to.deep.equal([]);
  });

  it('the walk sees through @svc packages: the runtime main entry reaches onnxruntime-node and the core', () => {
    const { files, packages } = reachable(join(ROOT, 'packages', 'adapters-runtime', 'dist', 'src', 'index.js'));
    expect(packages.has('onnxruntime-node')).to.equal(true);
    expect(files.has(CORE_ENTRY)).to.equal(true);
  });
});
