import { mkdir, readFile, rename, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { downloadHubFile } from './hub-download.js';
import { listRepoFiles, ModelPullError, remoteFiles, resolveCommit, type HubConnection, type RemoteFile } from './hub-files.js';
import { catalogEntry, catalogFiles, type CatalogEntry, type CatalogVariant } from './model-catalog.js';
import { recognizeRepoLayout, withExternalData } from './repo-layout.js';

/** What to pull: a catalog name, or `owner/repo[@revision]` in a layout this service recognises. */
export interface PullRequest {
  source: string;
  variant?: CatalogVariant;
  /** The model's name in the model directory (default: the catalog name, or the repository's name). */
  name?: string;
}

export interface PullOptions {
  modelsDir: string;
  hub: HubConnection;
  /** No byte for this long: the attempt is given up (default 60 s). */
  stallTimeoutMs?: number;
  /** Resumed attempts per file after a broken connection or a stall (default 3). */
  retries?: number;
  events?: PullEvents;
}

export interface PullEvents {
  onPlan?(plan: PullPlan): void;
  onFile?(file: RemoteFile, have: number): void;
  onBytes?(file: RemoteFile, bytes: number): void;
  onRetry?(file: RemoteFile, reason: string, bytes: number): void;
}

export interface PullPlan {
  name: string;
  repo: string;
  revision: string;
  commit: string;
  /** `directory`: a folder named `name` in the repository's layout (Kokoro, Whisper, Moonshine); `piper`: NAME.onnx and NAME.onnx.json. */
  layout: 'directory' | 'piper';
  files: RemoteFile[];
  bytes: number;
}

export interface PullResult {
  plan: PullPlan;
  /** What was written in the model directory, relative to it. */
  installed: string[];
}

const STAGING = '.partial';

/**
 * Pulls a model into the model directory: resolves the revision to a commit, asks the hub for each
 * file's size and checksum, checks the free space, downloads into `<modelsDir>/.partial/<name>/`
 * (a part already there from an interrupted pull is resumed), verifies every checksum and only then
 * moves the model into place with renames on the same filesystem (the server never sees half a
 * model). A checksum mismatch removes everything the pull wrote. Loading it once to verify is the
 * caller's (the CLI does it, as `add` does).
 */
export async function pullModel(request: PullRequest, options: PullOptions): Promise<PullResult> {
  try {
    return await pullInto(request, options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT')
      throw new ModelPullError(
        'disk_full',
        `the disk holding ${options.modelsDir} is full (${(error as Error).message}): free space, then run pull again to resume`,
      );
    throw error;
  }
}

async function pullInto(request: PullRequest, options: PullOptions): Promise<PullResult> {
  const plan = await planPull(request, options.hub);
  options.events?.onPlan?.(plan);
  const targets = plan.layout === 'piper' ? plan.files.map((f) => basename(f.path)) : [plan.name];
  for (const target of targets) {
    if (await stat(join(options.modelsDir, target)).catch(() => null))
      throw new ModelPullError(
        'exists',
        `${join(options.modelsDir, target)} already exists: remove the model first (npm run models -- remove ${plan.name})`,
      );
  }
  const staging = join(options.modelsDir, STAGING, plan.name);
  await prepareStaging(staging, plan.commit);
  const local = (f: RemoteFile) => join(staging, plan.layout === 'piper' ? basename(f.path) : f.path);
  await ensureSpace(options.modelsDir, plan, local);
  try {
    for (const file of plan.files) {
      await mkdir(dirname(local(file)), { recursive: true });
      const have = (await stat(local(file)).catch(() => null))?.size ?? 0;
      options.events?.onFile?.(file, have);
      await downloadHubFile(file, local(file), {
        repo: plan.repo,
        commit: plan.commit,
        hub: options.hub,
        stallTimeoutMs: options.stallTimeoutMs ?? 60_000,
        retries: options.retries ?? 3,
        onBytes: (bytes) => options.events?.onBytes?.(file, bytes),
        onRetry: (reason, bytes) => options.events?.onRetry?.(file, reason, bytes),
      });
    }
  } catch (error) {
    // A checksum mismatch leaves nothing behind; other failures keep the parts for the next pull to resume.
    if (error instanceof ModelPullError && error.reason === 'checksum') await rm(staging, { recursive: true, force: true });
    throw error;
  }
  await rm(join(staging, '.commit'));
  if (plan.layout === 'directory') {
    await writeFile(
      join(staging, '.pulled.json'),
      JSON.stringify({ repo: plan.repo, revision: plan.revision, commit: plan.commit, files: plan.files }, null, 2),
    );
    await rename(staging, join(options.modelsDir, plan.name));
    return { plan, installed: [plan.name] };
  }
  // Piper: the model first, its config last (the pair is what the scan recognises).
  const ordered = [...targets].sort((a, b) => Number(a.endsWith('.json')) - Number(b.endsWith('.json')));
  for (const target of ordered) await rename(join(staging, target), join(options.modelsDir, target));
  await rm(staging, { recursive: true, force: true });
  return { plan, installed: ordered };
}

/** The catalog entry's files, or the recognised layout of a repository, at the commit the revision points to. */
export async function planPull(request: PullRequest, hub: HubConnection): Promise<PullPlan> {
  const entry = catalogEntry(request.source);
  if (entry) return planCatalog(entry, request, hub);
  const match = /^([\w.-]+\/[\w.-]+)(?:@([\w./-]+))?$/.exec(request.source);
  if (!match)
    throw new ModelPullError(
      'unknown_model',
      `${request.source} is not in the catalog (npm run models -- catalog) nor a repository name owner/name[@revision]`,
    );
  const [, repo, revision = 'main'] = match;
  const commit = await resolveCommit(repo!, revision, hub);
  const layout = await recognizeRepoLayout(repo!, commit, hub, request.variant);
  const files = await remoteFiles(repo!, commit, layout.paths, hub);
  const name = request.name ?? layout.name ?? repo!.split('/')[1]!;
  return { name, repo: repo!, revision, commit, layout: layout.layout, files, bytes: total(files) };
}

async function planCatalog(entry: CatalogEntry, request: PullRequest, hub: HubConnection): Promise<PullPlan> {
  const paths = catalogFiles(entry, request.variant);
  if (!paths)
    throw new ModelPullError(
      'unknown_model',
      `${entry.name} has no ${request.variant} variant (it has: ${Object.keys(entry.variants).join(', ')})`,
    );
  const commit = await resolveCommit(entry.repo, entry.revision, hub);
  const repoFiles = (await listRepoFiles(entry.repo, commit, hub)).map((f) => f.path);
  // A model's external data comes with it: without it onnxruntime cannot load the model.
  const withData = paths.flatMap((p) => (p.endsWith('.onnx') ? withExternalData(p, repoFiles) : [p]));
  const listed = entry.listed;
  const extra = listed
    ? repoFiles
        .filter(
          (p) =>
            p.startsWith(`${listed.under}/`) && p.endsWith(listed.ending) && !listed.skipPrefixes.some((s) => basename(p).startsWith(s)),
        )
        .sort()
    : [];
  const files = await remoteFiles(entry.repo, commit, [...withData, ...extra], hub);
  const layout = entry.engine === 'piper' ? 'piper' : 'directory';
  return { name: request.name ?? entry.name, repo: entry.repo, revision: entry.revision, commit, layout, files, bytes: total(files) };
}

const total = (files: RemoteFile[]) => files.reduce((sum, f) => sum + f.size, 0);

/** A staging folder of another commit (the ref moved since an interrupted pull) is started over. */
async function prepareStaging(staging: string, commit: string): Promise<void> {
  const marker = join(staging, '.commit');
  const previous = await readFile(marker, 'utf8').catch(() => null);
  if (previous !== null && previous.trim() !== commit) await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await writeFile(marker, commit);
}

/** Refuses before downloading when the filesystem has less room than the bytes still to fetch. */
async function ensureSpace(modelsDir: string, plan: PullPlan, local: (f: RemoteFile) => string): Promise<void> {
  let missing = 0;
  for (const file of plan.files) missing += Math.max(0, file.size - ((await stat(local(file)).catch(() => null))?.size ?? 0));
  const fs = await statfs(modelsDir);
  const free = fs.bavail * fs.bsize;
  if (missing > free)
    throw new ModelPullError(
      'disk_full',
      `${plan.name} needs ${megabytes(missing)} more and ${modelsDir} has ${megabytes(free)} free: free space (or point SVC_MODELS_DIR elsewhere) and pull again`,
    );
}

export const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
