import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DELIVERY_INSTRUCTIONS, OPENAI_MODEL_ALIASES, OPENAI_VOICE_NAMES, SUPPORTED_TAG_VALUES } from '@svc/core';
import { SERVER_MODULES } from '../../src/composition/modules.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');
const read = (path: string) => readFileSync(resolve(ROOT, path), 'utf8');
const DOC_FILES = [
  'README.md',
  ...readdirSync(resolve(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
/** The 1-based line of a character offset. */
const lineOf = (text: string, at: number) => text.slice(0, at).split('\n').length;

/** The anchors GitHub gives a document's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Documentation that drifts from the code is worse than none: these fail when it does. */
describe('docs stay true to the code', () => {
  for (const module of SERVER_MODULES) {
    it(`${module.docs} documents every SVC_* setting of the ${module.name} module`, () => {
      const doc = read(module.docs);
      for (const key of Object.keys(module.settings)) expect(doc, key).to.contain(`\`${key}\``);
    });
  }

  it('docs/speech.md lists every supported inline tag value', () => {
    const doc = read('docs/speech.md');
    for (const [kind, values] of Object.entries(SUPPORTED_TAG_VALUES)) {
      expect(doc).to.contain(`<|${kind}:...|>`);
      for (const value of Object.keys(values)) expect(doc, `${kind}:${value}`).to.contain(`\`${value}\``);
    }
  });

  describe('docs/architecture.md draws the tree as it is', () => {
    const doc = read('docs/architecture.md');
    const blocks = [...doc.matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const tree = blocks.find((b) => b.startsWith('packages/core'))!;
    const composition = blocks.find((b) => b.startsWith('apps/server/src/'))!;
    const dirs = (path: string) =>
      existsSync(resolve(ROOT, path))
        ? readdirSync(resolve(ROOT, path), { withFileTypes: true })
            .filter((e) => e.isDirectory())
            .map((e) => e.name)
        : [];
    /** The lines of one package's entry: from its name at the line start to the next one. */
    const entry = (pkg: string) => {
      const lines = tree.split('\n');
      const start = lines.findIndex((l) => l.startsWith(`${pkg} `) || l === pkg);
      if (start < 0) return null;
      const end = lines.findIndex((l, i) => i > start && /^\S/.test(l));
      return lines.slice(start, end < 0 ? undefined : end).join('\n');
    };
    const packages = [...dirs('packages').map((d) => `packages/${d}`), ...dirs('apps').map((d) => `apps/${d}`)];

    it('has an entry for every package, naming every folder of its src/', () => {
      const missing: string[] = [];
      for (const pkg of packages) {
        const text = entry(pkg);
        if (text === null) {
          missing.push(pkg);
          continue;
        }
        const prefix = pkg.startsWith('apps/') ? '' : 'src/';
        for (const dir of dirs(`${pkg}/src`)) if (!text.includes(`${prefix}${dir}/`)) missing.push(`${pkg}/src/${dir}/`);
      }
      expect(missing, 'add these to the tree at the top of docs/architecture.md').to.deep.equal([]);
    });

    it('names no folder that does not exist', () => {
      const stale: string[] = [];
      for (const pkg of packages) {
        for (const [, dir] of (entry(pkg) ?? '').matchAll(/\bsrc\/([a-z0-9-]+)\//g))
          if (!existsSync(resolve(ROOT, pkg, 'src', dir!))) stale.push(`${pkg}/src/${dir}/`);
      }
      expect(stale).to.deep.equal([]);
    });

    it('lists every composition module and server file, and only existing ones', () => {
      const files = readdirSync(resolve(ROOT, 'apps/server/src/composition')).filter((f) => f.endsWith('.ts'));
      expect(
        files.filter((f) => !composition.includes(`composition/${f}`)),
        'composition modules missing from the list',
      ).to.deep.equal([]);
      const named = [...composition.matchAll(/^ {2}(\S+\.ts)\b/gm)].map((m) => m[1]!);
      expect(named.length).to.be.greaterThan(10);
      expect(
        named.filter((f) => !existsSync(resolve(ROOT, 'apps/server/src', f))),
        'listed but missing',
      ).to.deep.equal([]);
    });
  });

  it('README.md and docs/ point at nothing outside the repository', () => {
    for (const file of DOC_FILES) {
      const text = read(file);
      expect(text, `${file}: an absolute path of this machine`).not.to.match(/\/work\/|\/root\/|\/tmp\/svc/);
      expect(text, `${file}: the shared folder is not part of the repository`).not.to.match(/\bshared\/spec\//);
    }
  });

  it('every repository path README.md and docs/ name exists (apps/..., packages/..., scripts/...)', () => {
    // A reader opens the file a doc names: a path that moved (a test renamed, a package split)
    // sends them nowhere. Patterns and placeholders (`packages/*/src`, `<name>`) are not paths.
    const missing: string[] = [];
    for (const file of DOC_FILES) {
      const text = read(file);
      for (const m of text.matchAll(/(?<![\w./@-])((?:apps|packages|scripts|docs|examples|tools)\/[\w./*<>{}-]*)/g)) {
        const path = m[1]!.replace(/[.-]+$/, ''); // a sentence's full stop is not part of it
        if (/[*<>{}]/.test(path)) continue;
        if (!existsSync(resolve(ROOT, path))) missing.push(`${file}:${lineOf(text, m.index)}: ${path}`);
      }
    }
    expect(missing, 'paths that do not exist in the repository (write them from its root)').to.deep.equal([]);
  });

  it('every relative link of README.md and docs/ leads to a file that exists, and to a heading it has', () => {
    const broken: string[] = [];
    for (const file of DOC_FILES) {
      const text = read(file);
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^(?:https?|mailto):/.test(link)) continue;
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? file : join(dirname(file), path);
        const where = `${file}:${lineOf(text, m.index)}: ${link}`;
        if (!existsSync(resolve(ROOT, target))) broken.push(`${where} (no such file)`);
        else if (anchor && target.endsWith('.md') && !headingAnchors(read(target)).has(anchor)) broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it('docs/speech.md has the instructions table row for row, and every OpenAI voice name', () => {
    const doc = read('docs/speech.md');
    for (const row of DELIVERY_INSTRUCTIONS) expect(doc, row.tag).to.contain(`| \`${row.tag}\` | ${row.words.join(', ')} |`);
    for (const { name } of OPENAI_VOICE_NAMES) expect(doc, name).to.contain(`\`${name}\``);
  });

  it('where README.md and docs/compatibility.md say OpenAI clients work, they name the setting they need', () => {
    // The interface fixes the model ids: OpenAI's names (tts-1, gpt-realtime) are refused without it.
    const readme = read('README.md');
    const claim = readme.indexOf("Client libraries that speak OpenAI's API");
    expect(claim).to.be.greaterThan(0);
    expect(readme.slice(claim, claim + 400)).to.contain('SVC_OPENAI_MODEL_ALIASES=true');
    const compat = read('docs/compatibility.md');
    expect(compat.slice(0, compat.indexOf('## The compatibility setting'))).to.contain('SVC_OPENAI_MODEL_ALIASES=true');
    for (const text of [readme, compat]) expect(text).not.to.match(/work\s+\**unchanged/);
  });

  it('docs/compatibility.md names every OpenAI model alias', () => {
    const doc = read('docs/compatibility.md');
    for (const names of Object.values(OPENAI_MODEL_ALIASES)) for (const name of names) expect(doc, name).to.contain(`\`${name}\``);
  });
});
