import type { pathsInfo } from '@huggingface/hub';
import { describeNetworkFailure } from './network-failure.js';

/** The hub client, loaded by the first pull (a serving process never pulls, so never holds it: docs/deployment.md, Memory and warm-up). */
export const hubClient = (): Promise<typeof import('@huggingface/hub')> => import('@huggingface/hub');

// What a pull asks the Hugging Face hub before downloading, through the official @huggingface/hub
// client: the commit a revision points at, the files of a repository, and each file's size and
// checksum (sha256 of an LFS file's content, the git blob sha1 of any other) at that commit.

export interface HubConnection {
  /** The hub's base URL (HF_ENDPOINT), e.g. https://huggingface.co or a mirror. */
  hubUrl: string;
  /** A token (hf_...) for gated or private repositories; none for public ones. */
  accessToken?: string;
  /** How long a metadata request (model info, file list, paths-info, config.json) may go unanswered (default HUB_ANSWER_TIMEOUT_MS). */
  answerTimeoutMs?: number;
}

/**
 * A hub, mirror or proxy that accepts the connection and never answers held the pull silent for
 * undici's 5 minutes per request before the first file (the downloads have their own stall watch):
 * the metadata requests get the downloads' 60 s instead.
 */
export const HUB_ANSWER_TIMEOUT_MS = 60_000;

/** What the hub client's calls take: the endpoint, the token, and a fetch that gives up on a silent server. */
export function hubCallOptions(hub: HubConnection): { hubUrl: string; accessToken?: string; fetch: typeof fetch } {
  const ms = hub.answerTimeoutMs ?? HUB_ANSWER_TIMEOUT_MS;
  return {
    hubUrl: hub.hubUrl,
    ...(hub.accessToken ? { accessToken: hub.accessToken } : {}),
    fetch: async (input, init) => {
      const deadline = AbortSignal.timeout(ms);
      try {
        return await fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline });
      } catch (error) {
        if (deadline.aborted)
          throw new ModelPullError('stalled', `${new URL(hub.hubUrl).host} did not answer within ${(ms / 1000).toFixed(1)} s`);
        throw error;
      }
    },
  };
}

export interface RemoteFile {
  /** Path in the repository. */
  path: string;
  size: number;
  /** Checksum from the hub's metadata: sha256 of the content (LFS files) or git's blob sha1 (the others). */
  checksum: { algorithm: 'sha256' | 'git-sha1'; hex: string };
}

/** Why a pull stopped, said so an operator knows what to do. */
export class ModelPullError extends Error {
  constructor(
    readonly reason:
      'not_found' | 'unauthorized' | 'checksum' | 'disk_full' | 'stalled' | 'network' | 'exists' | 'layout' | 'unknown_model',
    message: string,
  ) {
    super(message);
    this.name = 'ModelPullError';
  }
}

/** The hub's errors as pull errors (the client throws HubApiError with the HTTP status). */
export function hubError(error: unknown, what: string): Error {
  const status = (error as { statusCode?: number }).statusCode;
  if (status === 404) return new ModelPullError('not_found', `${what} was not found on the hub (404)`);
  if (status === 401 || status === 403)
    return new ModelPullError(
      'unauthorized',
      `the hub refused ${what} (${status}): set HF_TOKEN to a token that may read it (gated or private repository)`,
    );
  if (error instanceof ModelPullError)
    return error.reason === 'stalled' ? new ModelPullError('stalled', `${what}: ${error.message}`) : error;
  if ((error as Error | undefined)?.name === 'TimeoutError') return new ModelPullError('stalled', `${what}: the hub stopped answering`);
  const failure = describeNetworkFailure(error);
  if (failure) return new ModelPullError('network', `${what}: could not reach ${failure.host ?? 'the hub'}: ${failure.reason}`);
  return new ModelPullError('network', `${what}: ${(error as Error).message}`);
}

/** The commit `revision` (a branch, tag or commit) points at now. */
export async function resolveCommit(repo: string, revision: string, hub: HubConnection): Promise<string> {
  try {
    const info = await (await hubClient()).modelInfo({ name: repo, revision, additionalFields: ['sha'], ...hubCallOptions(hub) });
    const sha = (info as { sha?: string }).sha;
    if (!sha) throw new ModelPullError('network', `the hub gave no commit for ${repo}@${revision}`);
    return sha;
  } catch (error) {
    throw hubError(error, `repository ${repo} at revision ${revision}`);
  }
}

/** Every file of the repository at `commit`, with its size. */
export async function listRepoFiles(repo: string, commit: string, hub: HubConnection): Promise<{ path: string; size: number }[]> {
  try {
    const files: { path: string; size: number }[] = [];
    const { listFiles } = await hubClient();
    for await (const entry of listFiles({ repo, revision: commit, recursive: true, ...hubCallOptions(hub) }))
      if (entry.type === 'file') files.push({ path: entry.path, size: entry.size });
    return files;
  } catch (error) {
    throw hubError(error, `the file list of ${repo}@${commit}`);
  }
}

/** Size and checksum of each path at `commit`; a path the repository does not have is a not_found error. */
export async function remoteFiles(repo: string, commit: string, paths: string[], hub: HubConnection): Promise<RemoteFile[]> {
  let infos: Awaited<ReturnType<typeof pathsInfo>>;
  try {
    infos = await (await hubClient()).pathsInfo({ repo, paths, revision: commit, ...hubCallOptions(hub) });
  } catch (error) {
    throw hubError(error, `the files of ${repo}@${commit}`);
  }
  const byPath = new Map(infos.filter((i) => i.type === 'file').map((i) => [i.path, i]));
  return paths.map((path) => {
    const info = byPath.get(path);
    if (!info) throw new ModelPullError('not_found', `${repo}@${commit.slice(0, 12)} has no file ${path} (404)`);
    if (info.lfs) return { path, size: info.lfs.size, checksum: { algorithm: 'sha256', hex: info.lfs.oid } };
    if (!info.oid) throw new ModelPullError('network', `the hub gave no checksum for ${path}`);
    return { path, size: info.size, checksum: { algorithm: 'git-sha1', hex: info.oid } };
  });
}
