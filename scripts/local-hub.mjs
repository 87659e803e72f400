#!/usr/bin/env node
// Serves model folders on loopback in the Hugging Face hub's URL layout, so that `models pull` can be
// tried, or used on a machine that cannot reach the hub, with HF_ENDPOINT pointing here. It is the
// local hub the pull's own tests run against (packages/adapters-testing/src/test-hub-server.ts: model
// info, tree, paths-info, resolve with LFS redirects, Range, ETag, X-Repo-Commit). Not for production.
//
//   node scripts/local-hub.mjs DIR        # every DIR/OWNER/REPO folder is a repository (revision main)
//   HF_ENDPOINT=<printed URL> npm run models -- pull OWNER/REPO
//
// Prints the URL on stdout, then serves until it is stopped (Ctrl-C, SIGTERM). Needs the repository's
// build (`npm run build`): it loads the test hub from packages/adapters-testing/dist.
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = process.argv[2];
if (!dir || process.argv.length > 3 || dir === '--help') {
  process.stderr.write('usage: node scripts/local-hub.mjs DIR   (DIR/OWNER/REPO/... are the repositories)\n');
  process.exit(dir === '--help' ? 0 : 2);
}
const { TestHubServer, hubFilesFromFolder, testCommit, sha256Hex } = await import(
  join(root, 'packages', 'adapters-testing', 'dist', 'src', 'index.js')
);

const folders = (path) => readdirSync(path).filter((name) => !name.startsWith('.') && statSync(join(path, name)).isDirectory());
const repos = [];
for (const owner of folders(resolve(dir))) {
  for (const name of folders(join(resolve(dir), owner))) {
    const files = await hubFilesFromFolder(join(resolve(dir), owner, name));
    // The commit names the content: files that change make another commit, as on the hub.
    const commit = testCommit(files.map((f) => `${f.path}:${sha256Hex(f.content)}`).join('\n'));
    repos.push({ id: `${owner}/${name}`, commit, refs: ['main'], files });
  }
}
if (repos.length === 0) {
  process.stderr.write(`local-hub: no OWNER/REPO folder in ${resolve(dir)}\n`);
  process.exit(1);
}
const hub = await TestHubServer.start(repos);
for (const repo of repos) {
  process.stderr.write(`local-hub: ${repo.id} @ ${repo.commit.slice(0, 12)}: ${repo.files.length} files\n`);
}
process.stdout.write(`${hub.url}\n`);
const stop = () => void hub.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
