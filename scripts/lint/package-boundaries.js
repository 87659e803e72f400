// ESLint rule `svc/package-boundaries`: the dependency rules of the hexagon, checked on every way a
// TypeScript file can name another module: import / export ... from, dynamic import(), type-position
// import('x').T, `import x = require('x')`, and require(), require.resolve() or a createRequire()
// function called with a string:
//   1. packages/core/src imports nothing outside packages/core (no node: modules, no libraries);
//   2. an adapter never imports another adapter (nor apps/*), except the engines' shared runtime
//      (@svc/adapters-runtime), which any adapter may import and which imports no other adapter;
//   3. only apps/* import adapters (a package's own tests may import the package itself, and an
//      adapter's tests the packages its package.json declares: the test builders of
//      @svc/adapters-testing, or a second engine for an end-to-end check); the test builders are
//      imported by tests and benchmarks only, never by a package's or the server's src/;
//   4. another workspace package is reached by its name (@svc/x), never by a relative path into its
//      folder nor by a deep path (@svc/x/src/...): only what its package.json exports is its interface;
//   5. the playground (packages/playground-web) is browser code served as static files: it imports
//      nothing outside its own folder (what it needs from the server, it fetches over HTTP).
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, relative, resolve, sep } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const BUILTINS = new Set(builtinModules);
/** The engines' shared runtime (threads, child processes, resamplers, ONNX): the one adapter adapters import. */
const SHARED_RUNTIME = 'adapters-runtime';
/** Test-only model builders and data: imported from test/ and bench/ folders only. */
const TEST_SUPPORT = 'adapters-testing';

const declared = new Map();
/** True when the package.json of `pkg` ('packages/x') lists `@svc/<name>` (dependencies or devDependencies). */
function declares(pkg, name) {
  if (!declared.has(pkg)) {
    let names = new Set();
    try {
      const json = JSON.parse(readFileSync(resolve(ROOT, pkg, 'package.json'), 'utf8'));
      names = new Set([...Object.keys(json.dependencies ?? {}), ...Object.keys(json.devDependencies ?? {})]);
    } catch {
      // no package.json: declares nothing
    }
    declared.set(pkg, names);
  }
  return declared.get(pkg).has(`@svc/${name}`);
}

/** An adapter reaching another adapter it may use: the shared runtime, or (from its tests) a package it declares. */
function allowedAdapterEdge(from, to) {
  if (to.name === SHARED_RUNTIME && from.name !== SHARED_RUNTIME) return true;
  return from.part === 'test' && declares(from.pkg, to.name);
}

/**
 * `{ kind: 'core' | 'adapter' | 'app' | 'other', name, part, pkg }` of a path inside the repository;
 * `pkg` is its workspace package folder ('packages/x', 'apps/x') or null outside them.
 */
function locate(path) {
  const rel = relative(ROOT, path).split(sep);
  if (rel[0] === 'packages' && rel[1]) {
    const name = rel[1];
    return {
      kind: name === 'core' ? 'core' : name.startsWith('adapters-') ? 'adapter' : 'other',
      name,
      part: rel[2],
      pkg: `packages/${name}`,
    };
  }
  if (rel[0] === 'apps' && rel[1]) return { kind: 'app', name: rel[1], part: rel[2], pkg: `apps/${rel[1]}` };
  return { kind: 'other', name: rel[0] ?? '', part: undefined, pkg: null };
}

/** Where an import specifier points: a workspace package, a node: module or a library. */
function target(specifier, fromFile) {
  if (specifier.startsWith('.')) return { ...locate(resolve(dirname(fromFile), specifier)), label: specifier, relative: true };
  if (specifier.startsWith('node:') || BUILTINS.has(specifier.split('/')[0])) return { kind: 'node', name: specifier, label: specifier };
  const svc = /^@svc\/([^/]+)/.exec(specifier);
  if (svc) {
    const name = svc[1];
    if (name === 'core') return { kind: 'core', name, label: specifier, deep: /^@svc\/core\/(src|dist|test)(\/|$)/.test(specifier) };
    const deep = /^@svc\/[^/]+\/(src|dist|test)(\/|$)/.test(specifier);
    if (name.startsWith('adapters-')) return { kind: 'adapter', name, label: specifier, deep };
    if (name === 'playground-web') return { kind: 'other', name, label: specifier, deep };
    return { kind: 'app', name, label: specifier, deep };
  }
  return { kind: 'library', name: specifier, label: specifier };
}

function violation(from, to) {
  if (from.pkg === 'packages/playground-web' && !(to.relative && to.pkg === from.pkg)) {
    return `the playground is browser code served as static files and imports nothing outside packages/playground-web (found '${to.label}'): fetch what it needs from the server over HTTP`;
  }
  if (to.relative && to.pkg !== null && to.pkg !== from.pkg && from.kind !== 'core') {
    return `another workspace package is imported by its name (@svc/...), not by a path into its folder (found '${to.label}')`;
  }
  if (to.deep)
    return `a workspace package is imported by its name only, not by a path into its files (found '${to.label}'): use what its package.json exports`;
  if (from.kind === 'core' && from.part === 'src' && !(to.kind === 'core' && to.name === 'core' && !to.label.startsWith('@svc/'))) {
    return `packages/core imports nothing outside itself (found '${to.label}'): declare a port in the core and implement it in an adapter`;
  }
  if (to.kind === 'adapter' && to.name === TEST_SUPPORT && from.name !== TEST_SUPPORT && from.part === 'src') {
    return `the test builders (@svc/${TEST_SUPPORT}) are imported by tests and benchmarks only, never from src/ (found '${to.label}')`;
  }
  if (from.kind === 'adapter' && (to.kind === 'app' || (to.kind === 'adapter' && to.name !== from.name && !allowedAdapterEdge(from, to)))) {
    return `an adapter depends only on @svc/core, @svc/${SHARED_RUNTIME} and libraries (found '${to.label}'): wire adapters together in apps/server`;
  }
  if (to.kind === 'adapter' && from.kind !== 'app' && to.name !== from.name && !(from.kind === 'adapter' && allowedAdapterEdge(from, to))) {
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
    // Names bound to a CommonJS require: `require` itself and whatever createRequire(...) returned.
    const requires = new Set(['require']);
    const isCreateRequire = (node) =>
      node?.type === 'CallExpression' &&
      ((node.callee.type === 'Identifier' && node.callee.name === 'createRequire') ||
        (node.callee.type === 'MemberExpression' && node.callee.property.name === 'createRequire'));
    const isRequire = (callee) =>
      (callee.type === 'Identifier' && requires.has(callee.name)) ||
      isCreateRequire(callee) ||
      (callee.type === 'MemberExpression' &&
        callee.property.name === 'resolve' &&
        (isRequire(callee.object) || isCreateRequire(callee.object)));
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      // type T = import('x').T
      TSImportType: (node) => check(node, node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
      // import x = require('x')
      TSExternalModuleReference: (node) => check(node, node.expression),
      VariableDeclarator: (node) => {
        if (node.id.type === 'Identifier' && isCreateRequire(node.init)) requires.add(node.id.name);
      },
      // require('x'), require.resolve('x'), createRequire(url)('x') and a createRequire()'d function
      CallExpression: (node) => {
        if (isRequire(node.callee) && node.arguments[0]?.type === 'Literal') check(node, node.arguments[0]);
      },
    };
  },
};
