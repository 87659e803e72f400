// ESLint rule `svc/package-boundaries`: the dependency rules of the hexagon, checked on every import,
// re-export and dynamic import (type-only ones included):
//   1. packages/core/src imports nothing outside packages/core (no node: modules, no libraries);
//   2. an adapter never imports another adapter (nor apps/*);
//   3. only apps/* import adapters (a package's own tests may import the package itself).
import { builtinModules } from 'node:module';
import { dirname, relative, resolve, sep } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const BUILTINS = new Set(builtinModules);

/** `{ kind: 'core' | 'adapter' | 'app' | 'other', name, part }` of a path inside the repository. */
function locate(path) {
  const rel = relative(ROOT, path).split(sep);
  if (rel[0] === 'packages' && rel[1]) {
    const name = rel[1];
    return { kind: name === 'core' ? 'core' : name.startsWith('adapters-') ? 'adapter' : 'other', name, part: rel[2] };
  }
  if (rel[0] === 'apps' && rel[1]) return { kind: 'app', name: rel[1], part: rel[2] };
  return { kind: 'other', name: rel[0] ?? '', part: undefined };
}

/** Where an import specifier points: a workspace package, a node: module or a library. */
function target(specifier, fromFile) {
  if (specifier.startsWith('.')) return { ...locate(resolve(dirname(fromFile), specifier)), label: specifier };
  if (specifier.startsWith('node:') || BUILTINS.has(specifier.split('/')[0])) return { kind: 'node', name: specifier, label: specifier };
  const svc = /^@svc\/([^/]+)/.exec(specifier);
  if (svc) {
    const name = svc[1];
    if (name === 'core') return { kind: 'core', name, label: specifier };
    if (name.startsWith('adapters-')) return { kind: 'adapter', name, label: specifier };
    return { kind: 'app', name, label: specifier };
  }
  return { kind: 'library', name: specifier, label: specifier };
}

function violation(from, to) {
  if (from.kind === 'core' && from.part === 'src' && !(to.kind === 'core' && to.name === 'core' && !to.label.startsWith('@svc/'))) {
    return `packages/core imports nothing outside itself (found '${to.label}'): declare a port in the core and implement it in an adapter`;
  }
  if (from.kind === 'adapter' && (to.kind === 'app' || (to.kind === 'adapter' && to.name !== from.name))) {
    return `an adapter depends only on @svc/core and libraries (found '${to.label}'): wire adapters together in apps/server`;
  }
  if (to.kind === 'adapter' && from.kind !== 'app' && to.name !== from.name) {
    return `only apps/* import adapters (found '${to.label}'): depend on the core's port instead`;
  }
  return null;
}

export const packageBoundaries = {
  meta: { type: 'problem', docs: { description: 'hexagonal package boundaries (docs/architecture.md)' }, schema: [] },
  create(context) {
    const file = context.filename ?? context.getFilename();
    const from = locate(file);
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string') return;
      const message = violation(from, target(source.value, file));
      if (message) context.report({ node, message });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    };
  },
};
