import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');
const json = (path: string) => JSON.parse(readFileSync(resolve(ROOT, path), 'utf8')) as Record<string, unknown>;

/**
 * The Node version the README states, package.json's `engines` and every locked dependency's
 * `engines` agree: a fresh `npm ci` on the stated Node prints no EBADENGINE (and .npmrc's
 * engine-strict turns one into a failed install, so CI cannot drift either).
 */
describe('the Node version: README, engines, dependencies and this process agree', () => {
  const engines = (json('package.json').engines as { node: string }).node;
  const oldest = semver.minVersion(engines)!.version;

  it('README.md states the oldest Node that package.json engines admits', () => {
    const [major, minor] = oldest.split('.');
    expect(readFileSync(resolve(ROOT, 'README.md'), 'utf8')).to.contain(`Node ${major}.${minor}+`);
  });

  // The oldest Node engines admits and the one running the tests (CI's): dependencies commonly skip
  // odd majors (21) or early minors of the next line, so "every Node >= X" is not the claim.
  for (const [which, version] of [
    ['the oldest Node engines.node admits', oldest],
    ['this Node', process.versions.node],
  ] as const) {
    it(`every package in package-lock.json runs on ${which} (${version})`, () => {
      const lock = json('package-lock.json') as { packages: Record<string, { version?: string; engines?: unknown }> };
      const narrower: string[] = [];
      for (const [path, entry] of Object.entries(lock.packages)) {
        const range = (entry.engines as { node?: unknown } | undefined)?.node;
        if (typeof range !== 'string' || !semver.validRange(range)) continue;
        if (!semver.satisfies(version, range)) narrower.push(`${path}@${entry.version}: node ${range}`);
      }
      expect(
        narrower,
        `needs a newer Node than ${version}: pick a release that supports it, or raise engines.node and the README`,
      ).to.deep.equal([]);
    });
  }

  it('npm refuses, not warns, a dependency whose engines exclude this Node (.npmrc engine-strict)', () => {
    expect(readFileSync(resolve(ROOT, '.npmrc'), 'utf8')).to.match(/^engine-strict\s*=\s*true$/m);
    expect(semver.satisfies(process.version, engines), `this Node (${process.version}) is outside engines.node`).to.equal(true);
  });
});
