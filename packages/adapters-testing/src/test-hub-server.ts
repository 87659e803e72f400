import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

// A local stand-in for the Hugging Face hub, in its URL layout and with the headers @huggingface/hub
// reads, so `models pull` is tested for real over HTTP (the build machine cannot reach the hub):
//   GET  /api/models/{repo}/revision/{rev}     model info with `sha` (the commit the revision points at)
//   GET  /api/models/{repo}/tree/{rev}?recursive=true     the file list
//   POST /api/models/{repo}/paths-info/{rev}   size, git oid and, for LFS files, lfs.oid (sha256)
//   GET  /{repo}/resolve/{rev}/{path}          the file: ETag, X-Repo-Commit, Accept-Ranges, Range ->
//        206 + Content-Range; an LFS file answers 302 to /cdn-lfs/{sha256} with X-Linked-ETag and
//        X-Linked-Size, as the hub redirects to its CDN; a missing file 404 with X-Error-Code EntryNotFound.
// Faults a test can switch on: a connection cut after N bytes (once per file), a slow server, a
// server that stops sending for a while, and content that does not match its checksum.

export interface TestHubFile {
  path: string;
  content: Uint8Array;
  /** Stored with LFS (the model weights): checksum sha256, served through the CDN redirect. */
  lfs?: boolean;
}

export interface TestHubRepo {
  id: string;
  /** 40 hex; the refs listed point at it too. */
  commit: string;
  refs?: string[];
  files: TestHubFile[];
}

export interface TestHubFaults {
  /** path -> bytes sent before the connection is destroyed (on the first full request of that file only). */
  cutOnce?: Map<string, number>;
  /** Every file body trickles at this rate. */
  bytesPerSecond?: number;
  /** After `afterBytes` of `path`, nothing is sent for `ms` (every request). */
  stall?: { path: string; afterBytes: number; ms: number };
  /** Paths whose served bytes differ from the content their checksum describes. */
  corrupt?: Set<string>;
}

export interface HubRequest {
  method: string;
  url: string;
  range: string | undefined;
}

export const sha256Hex = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
export const gitBlobSha1 = (data: Uint8Array) => createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
/** A commit id for a test repository. */
export const testCommit = (seed: string) => createHash('sha1').update(seed).digest('hex');

export class TestHubServer {
  readonly requests: HubRequest[] = [];
  private current: TestHubFaults = {};
  private readonly cutDone = new Set<string>();
  private readonly repos = new Map<string, TestHubRepo>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(repos: TestHubRepo[] = []): Promise<TestHubServer> {
    let hub!: TestHubServer;
    const server = createServer((req, res) => void hub.handle(req, res).catch(() => res.destroy()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hub = new TestHubServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    for (const repo of repos) hub.addRepo(repo);
    return hub;
  }

  get faults(): TestHubFaults {
    return this.current;
  }

  /** New faults: a cut configured again happens again. */
  set faults(faults: TestHubFaults) {
    this.current = faults;
    this.cutDone.clear();
  }

  addRepo(repo: TestHubRepo): void {
    this.repos.set(repo.id, repo);
  }

  /** Requests for a file's content (resolve or CDN), with their Range header. */
  contentRequests(path: string): HubRequest[] {
    return this.requests.filter((r) => r.url.endsWith(`/${path}`) || this.cdnPath(r.url) === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private cdnFile(url: string): TestHubFile | undefined {
    const sha = /^\/cdn-lfs\/([0-9a-f]{64})/.exec(url)?.[1];
    if (!sha) return undefined;
    for (const repo of this.repos.values()) for (const f of repo.files) if (f.lfs && sha256Hex(f.content) === sha) return f;
    return undefined;
  }

  private cdnPath(url: string): string | undefined {
    return this.cdnFile(url)?.path;
  }

  private repoAt(id: string, revision: string): TestHubRepo | undefined {
    const repo = this.repos.get(id);
    return repo && (revision === repo.commit || (repo.refs ?? ['main']).includes(revision)) ? repo : undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url!, this.url);
    const path = decodeURIComponent(url.pathname);
    this.requests.push({ method: req.method!, url: path, range: req.headers.range });
    const api = /^\/api\/models\/([^/]+\/[^/]+)\/(revision|tree|paths-info)\/([^/]+)(?:\/(.*))?$/.exec(path);
    if (api) return this.api(req, res, api[1]!, api[2]!, api[3]!);
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    if (resolve) return this.resolveFile(req, res, resolve[1]!, resolve[2]!, resolve[3]!);
    const file = this.cdnFile(path);
    if (file) {
      // The CDN's own ETag is the content's sha256 (what the hub client reads after following the redirect).
      return this.serve(req, res, file, { ETag: `"${sha256Hex(file.content)}"` });
    }
    this.notFound(res, 'RepoNotFound');
  }

  private async api(req: IncomingMessage, res: ServerResponse, id: string, kind: string, revision: string): Promise<void> {
    const repo = this.repoAt(id, revision);
    if (!repo) return this.notFound(res, this.repos.has(id) ? 'RevisionNotFound' : 'RepoNotFound');
    const entry = (f: TestHubFile) => ({
      type: 'file',
      path: f.path,
      size: f.content.length,
      oid: f.lfs
        ? gitBlobSha1(
            new TextEncoder().encode(
              `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256Hex(f.content)}\nsize ${f.content.length}\n`,
            ),
          )
        : gitBlobSha1(f.content),
      ...(f.lfs ? { lfs: { oid: sha256Hex(f.content), size: f.content.length, pointerSize: 134 } } : {}),
    });
    let body: unknown;
    if (kind === 'revision')
      body = { id: repo.id, modelId: repo.id, sha: repo.commit, private: false, siblings: repo.files.map((f) => ({ rfilename: f.path })) };
    else if (kind === 'tree') body = repo.files.map(entry);
    else {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const { paths } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { paths: string[] };
      body = repo.files.filter((f) => paths.includes(f.path)).map(entry);
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  }

  private resolveFile(req: IncomingMessage, res: ServerResponse, id: string, revision: string, filePath: string): void {
    const repo = this.repoAt(id, revision);
    if (!repo) return this.notFound(res, this.repos.has(id) ? 'RevisionNotFound' : 'RepoNotFound');
    const file = repo.files.find((f) => f.path === filePath);
    if (!file) return this.notFound(res, 'EntryNotFound');
    const common = { 'X-Repo-Commit': repo.commit };
    if (file.lfs) {
      const sha = sha256Hex(file.content);
      res
        .writeHead(302, {
          ...common,
          Location: `/cdn-lfs/${sha}`,
          'X-Linked-ETag': `"${sha}"`,
          'X-Linked-Size': String(file.content.length),
          ETag: `"${gitBlobSha1(file.content)}"`,
        })
        .end();
      return;
    }
    void this.serve(req, res, file, { ...common, ETag: `"${gitBlobSha1(file.content)}"` });
  }

  private async serve(req: IncomingMessage, res: ServerResponse, file: TestHubFile, headers: Record<string, string>): Promise<void> {
    const content = this.faults.corrupt?.has(file.path) ? corrupted(file.content) : file.content;
    const size = content.length;
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = range && range[2] ? Math.min(size - 1, Number(range[2])) : size - 1;
    if (range && start >= size) {
      res.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
      return;
    }
    res.writeHead(range ? 206 : 200, {
      ...headers,
      'Accept-Ranges': 'bytes',
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(end - start + 1),
      ...(range ? { 'Content-Range': `bytes ${start}-${end}/${size}` } : {}),
    });
    if (req.method === 'HEAD') return void res.end();
    const probe = start === 0 && end === 0;
    const cut = !probe && !this.cutDone.has(file.path) ? this.faults.cutOnce?.get(file.path) : undefined;
    let offset = start;
    const chunk = this.faults.bytesPerSecond ? 2048 : 16 * 1024;
    while (offset <= end) {
      if (cut !== undefined && offset - start >= cut) {
        this.cutDone.add(file.path);
        res.destroy();
        return;
      }
      const stall = this.faults.stall;
      if (!probe && stall && stall.path === file.path && offset >= stall.afterBytes && offset - chunk < stall.afterBytes)
        await sleep(stall.ms);
      let next = Math.min(end + 1, offset + chunk);
      if (cut !== undefined) next = Math.min(next, start + cut);
      // Each piece flushed before the next (so a cut after N bytes has really sent N bytes).
      await new Promise((r) => res.write(content.subarray(offset, next), r));
      if (!probe && this.faults.bytesPerSecond) await sleep(((next - offset) / this.faults.bytesPerSecond) * 1000);
      if (res.destroyed) return;
      offset = next;
    }
    res.end();
  }

  private notFound(res: ServerResponse, code: string): void {
    res
      .writeHead(404, { 'Content-Type': 'application/json', 'X-Error-Code': code })
      .end(JSON.stringify({ error: `${code}: not found on the test hub` }));
  }
}

/** The files of a local folder as hub files under `prefix`; model weights (.onnx, .onnx_data, .bin) as LFS. */
export async function hubFilesFromFolder(dir: string, prefix = ''): Promise<TestHubFile[]> {
  const files: TestHubFile[] = [];
  for (const entry of (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile())) {
    const relative = join(entry.parentPath, entry.name).slice(dir.length + 1);
    files.push({
      path: prefix + relative,
      content: new Uint8Array(await readFile(join(dir, relative))),
      lfs: /\.(onnx|onnx_data|bin)$/.test(entry.name),
    });
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function corrupted(content: Uint8Array): Uint8Array {
  const copy = Uint8Array.from(content);
  copy[Math.floor(copy.length / 2)] ^= 0xff;
  return copy;
}
