import { cp, mkdir, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  EspeakPhonemizer,
  KokoroSpeechSynthesizer,
  MODEL_CATALOG,
  catalogEntry,
  megabytes,
  ModelPullError,
  PiperSpeechSynthesizer,
  pullModel,
  readKokoroModel,
} from '@svc/adapters-speech-synthesis';
import {
  isTransformersAsrLayout,
  readTransformersAsrModel,
  SmartTurnModel,
  TransformersSpeechRecognizer,
} from '@svc/adapters-speech-recognition';
import { scanModelDirectory } from '../runtime/model-directory.js';
import { loadConfig } from '../config.js';
import { modelsDirOf } from '../runtime/models-dir.js';
import { parseCliArgs, runCliMain, USAGE_EXIT_CODE } from './cli-args.js';
import { pullProgress } from './pull-progress.js';
import { offlineAdvice, useProxyFromEnv } from './pull-network.js';

const USAGE = `Usage:
  npm run models -- list                  models in the model directory (name, engine, languages, rate, sha256)
  npm run models -- add PATH              copy a Piper NAME.onnx (with NAME.onnx.json beside it), a Kokoro directory or a
                                          Whisper / Moonshine directory (transformers.js ONNX layout) in
  npm run models -- remove NAME           remove a model (a Piper NAME or a Kokoro directory name)
  npm run models -- verify                load every model with onnxruntime; exit 1 if any is broken
  npm run models -- catalog               the models pull knows (repository, revision, licence, languages)
  npm run models -- pull NAME|OWNER/REPO[@REVISION] [--variant fp32|quantized] [--name LOCAL]
                                          download a catalog model (or a repository in a layout the service
                                          loads) from the Hugging Face hub, verify its checksums, install it,
                                          load it once; resumes an interrupted pull. HF_ENDPOINT (a mirror) and
                                          HF_TOKEN (gated or private repositories) are read as the hub's own tools do;
                                          HTTPS_PROXY / HTTP_PROXY / NO_PROXY as curl reads them.
  npm run models -- --help                this text
Reads SVC_MODELS_DIR / SVC_DATA_DIR like the server (default <dataDir>/models). Restart the server to apply.`;

type Out = (line: string) => void;

/** Model directory administration: the same scan the server does at start-up. */
const defaultOut: Out = (l) => process.stdout.write(l + '\n');

export async function runModelsCli(
  argv: string[],
  out: Out = defaultOut,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const parsed = parseCliArgs(
    argv,
    { json: { type: 'boolean', default: false }, variant: { type: 'string' }, name: { type: 'string' } },
    USAGE,
    out,
  );
  if ('exit' in parsed) return parsed.exit;
  const { positionals, values } = parsed.args;
  const [command, arg] = positionals;
  if (
    !command ||
    !['list', 'add', 'remove', 'verify', 'catalog', 'pull'].includes(command) ||
    (['add', 'remove', 'pull'].includes(command) && !arg)
  ) {
    if (command)
      out(
        `error: ${['add', 'remove', 'pull'].includes(command) ? `${command} needs a ${command === 'remove' ? 'NAME' : command === 'add' ? 'PATH' : 'model'}` : `unknown command '${command}'`}.`,
      );
    out(USAGE);
    return USAGE_EXIT_CODE;
  }
  const config = loadConfig(env);
  const dir = modelsDirOf(config.settings.SVC_MODELS_DIR, config.settings.SVC_DATA_DIR);

  if (command === 'list') {
    const scan = await scanModelDirectory(dir);
    const manifests = [
      ...scan.piper.map((p) => p.manifest),
      ...scan.kokoro.map((k) => k.manifest),
      ...scan.asr.map((a) => a.manifest),
      ...scan.turn.map((t) => t.manifest),
    ];
    if (values.json) out(JSON.stringify({ dir, models: manifests, warnings: scan.warnings }));
    else {
      out(`${dir}: ${manifests.length} model(s)`);
      for (const m of manifests)
        out(`${m.name}\t${m.kind}\t${m.engine}\t${m.languages.join(',')}\t${m.sampleRate} Hz\tsha256:${m.checksum.slice(0, 16)}`);
      for (const w of scan.warnings) out(`warning: ${w}`);
    }
    return 0;
  }
  if (command === 'catalog') return catalog(out, values.json);
  if (command === 'pull') {
    if (values.variant !== undefined && values.variant !== 'fp32' && values.variant !== 'quantized') {
      out(`--variant must be fp32 or quantized, not ${values.variant}`);
      return USAGE_EXIT_CODE;
    }
    return pull({ source: arg!, variant: values.variant, name: values.name }, dir, out, env);
  }
  if (command === 'add') return add(arg!, dir, out);
  if (command === 'remove') return remove(arg!, dir, out);
  return verify(dir, out, config.settings.SVC_ONNX_THREADS);
}

function catalog(out: Out, json: boolean): number {
  if (json) out(JSON.stringify(MODEL_CATALOG));
  else
    for (const e of MODEL_CATALOG)
      out(
        `${e.name}\t${e.engine}\t${e.repo}@${e.revision.slice(0, 12)}\t${Object.keys(e.variants).join('/')}\t${e.languages.join(',')}\t${e.licence}`,
      );
  return 0;
}

/** Downloads, installs, then loads the model once (as add does); a model that does not load is removed again. */
async function pull(
  request: Parameters<typeof pullModel>[0],
  dir: string,
  out: Out,
  env: Record<string, string | undefined>,
): Promise<number> {
  const hub = {
    hubUrl: (env.HF_ENDPOINT || 'https://huggingface.co').replace(/\/+$/, ''),
    ...(env.HF_TOKEN ? { accessToken: env.HF_TOKEN } : {}),
  };
  const terminal = process.stdout.isTTY && out === defaultOut ? process.stdout : null;
  const restoreDispatcher = useProxyFromEnv(env, hub.hubUrl);
  let result: Awaited<ReturnType<typeof pullModel>>;
  try {
    result = await pullModel(request, { modelsDir: dir, hub, events: pullProgress(out, terminal) });
  } catch (error) {
    if (!(error instanceof ModelPullError)) throw error;
    out(`not pulled: ${error.message}`);
    if (error.reason === 'network' || error.reason === 'stalled')
      for (const line of offlineAdvice(hub.hubUrl, request.source, env)) out(line);
    return error.reason === 'unknown_model' ? 2 : 1;
  } finally {
    await restoreDispatcher();
  }
  const name = result.plan.layout === 'piper' ? result.installed[0]!.replace(/\.onnx$/, '') : result.plan.name;
  const problems = await loadProblems(dir, 1, name);
  if (problems.length > 0) {
    await removeFiles(dir, name);
    for (const p of problems) out(p);
    out(`not added: ${name} was downloaded but does not load (removed)`);
    return 1;
  }
  // An end-of-turn model is used only when named (a voice or recognizer is found by the scan).
  const use =
    catalogEntry(request.source)?.engine === 'smart-turn'
      ? `set SVC_TURN_MODEL=${name} and restart the server to use it`
      : 'restart the server to use it';
  out(
    `pulled ${name} (${megabytes(result.plan.bytes)}, ${result.plan.repo}@${result.plan.commit.slice(0, 12)}) into ${dir}; checksums verified, loads (${use})`,
  );
  return 0;
}

async function add(source: string, dir: string, out: Out): Promise<number> {
  // The service never downloads at run time (only npm and apt are used): say how to do it instead.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    out(
      `models add takes a local path, not ${source}: to download a model from the Hugging Face hub use "npm run models -- pull NAME" (npm run models -- catalog lists them)`,
    );
    return 2;
  }
  const info = await stat(source).catch(() => null);
  if (!info) {
    out(`no such file or directory: ${source}`);
    return 2;
  }
  await mkdir(dir, { recursive: true });
  let name: string;
  if (info.isDirectory()) {
    name = basename(source);
    const recognizer = await isTransformersAsrLayout(source);
    try {
      if (recognizer) await readTransformersAsrModel(source);
      else await readKokoroModel(source, name);
    } catch (error) {
      out(`${source} is not a usable ${recognizer ? 'Whisper / Moonshine' : 'Kokoro'} directory: ${(error as Error).message}`);
      return 1;
    }
    await cp(source, join(dir, name), { recursive: true });
  } else {
    if (!source.endsWith('.onnx')) {
      out(`${source}: expected a Piper NAME.onnx (with NAME.onnx.json beside it) or a Kokoro directory`);
      return 2;
    }
    if (!(await stat(`${source}.json`).catch(() => null))) {
      out(`${source}.json is missing: a Piper voice is NAME.onnx plus NAME.onnx.json`);
      return 1;
    }
    name = basename(source).slice(0, -'.onnx'.length);
    await cp(source, join(dir, `${name}.onnx`));
    await cp(`${source}.json`, join(dir, `${name}.onnx.json`));
  }
  const problems = await loadProblems(dir, 1, name);
  if (problems.length > 0) {
    await removeFiles(dir, name);
    for (const p of problems) out(p);
    out(`not added: ${name}`);
    return 1;
  }
  out(`added ${name} to ${dir} (restart the server to use it)`);
  return 0;
}

async function removeFiles(dir: string, name: string): Promise<boolean> {
  const targets = [join(dir, `${name}.onnx`), join(dir, `${name}.onnx.json`), join(dir, name)];
  let removed = false;
  for (const t of targets) {
    if (await stat(t).catch(() => null)) {
      await rm(t, { recursive: true, force: true });
      removed = true;
    }
  }
  return removed;
}

async function remove(name: string, dir: string, out: Out): Promise<number> {
  if (name.includes('/') || name.includes('\\') || name.startsWith('.')) {
    out(`not a model name: ${name}`);
    return 2;
  }
  const removed = await removeFiles(dir, name);
  out(removed ? `removed ${name} (restart the server to apply)` : `no model ${name} in ${dir}`);
  return removed ? 0 : 1;
}

/** Scan warnings plus models onnxruntime cannot load (only those named `only`, when given). */
async function loadProblems(dir: string, threads: number, only?: string): Promise<string[]> {
  const scan = await scanModelDirectory(dir);
  const mine = (line: string) => !only || line.startsWith(`model ${only}:`);
  const problems = scan.warnings.filter(mine);
  const piper = scan.piper.filter((p) => !only || p.manifest.name === only);
  const kokoro = scan.kokoro.filter((k) => !only || k.manifest.name === only);
  for (const asr of scan.asr.filter((a) => !only || a.manifest.name === only)) {
    try {
      await (await TransformersSpeechRecognizer.create({ dir: asr.model.dir, threads })).close();
    } catch (error) {
      problems.push(`model ${asr.manifest.name}: skipped, ${(error as Error).message}`);
    }
  }
  for (const turn of scan.turn.filter((t) => !only || t.manifest.name === only)) {
    try {
      await (await SmartTurnModel.load(turn.modelPath, { threads })).close();
    } catch (error) {
      problems.push(`model ${turn.manifest.name}: skipped, ${(error as Error).message}`);
    }
  }
  if (piper.length + kokoro.length === 0) return problems;
  const phonemizer = await EspeakPhonemizer.create();
  const onSkipped = (name: string, reason: string) => problems.push(`model ${name}: skipped, ${reason}`);
  const engines = [
    await PiperSpeechSynthesizer.create({ models: piper, phonemizer, threads, onSkipped }),
    await KokoroSpeechSynthesizer.create({ models: kokoro.map((k) => k.model), phonemizer, threads, onSkipped }),
  ];
  await Promise.all([...engines.map((e) => e.close()), phonemizer.release()]);
  return problems;
}

async function verify(dir: string, out: Out, threads: number): Promise<number> {
  const problems = await loadProblems(dir, threads);
  const scan = await scanModelDirectory(dir);
  for (const p of problems) out(`problem: ${p}`);
  out(
    `${scan.piper.length + scan.kokoro.length + scan.asr.length + scan.turn.length - problems.filter((p) => /onnxruntime|not a (Piper|Kokoro|Smart Turn)|the (de|en)coder/.test(p)).length} model(s) load, ${problems.length} problem(s)`,
  );
  return problems.length > 0 ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runCliMain('models', () => runModelsCli(process.argv.slice(2)));
}
