import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const CHILD = fileURLToPath(new URL('./onnx-telemetry-child.js', import.meta.url));

/**
 * Where onnxruntime-node's telemetry keeps its device id and event queue (under the user's cache
 * folder) as it starts the uploader that then looks up Microsoft's collector: no folder, no uploader.
 */
const telemetryStore = (home: string): string => join(home, '.cache', 'Microsoft', 'DeveloperTools', '.onnxruntime');

/**
 * The variables by which onnxruntime decides it runs under a CI service (or its own unit tests) and
 * starts no telemetry: a CI machine sets some of them, which would make the control see none.
 */
const CI_MARKERS = [
  'CI',
  'TF_BUILD',
  'GITHUB_ACTIONS',
  'GITLAB_CI',
  'CIRCLECI',
  'TRAVIS',
  'JENKINS_URL',
  'CODEBUILD_BUILD_ID',
  'BUILDKITE',
  'TEAMCITY_VERSION',
  'APPVEYOR',
  'ORT_RUNNING_UNIT_TESTS',
];

/** Runs the child in a fresh HOME with no telemetry setting of its own; true if the telemetry store appeared. */
async function telemetryStarted(mode: string): Promise<boolean> {
  const home = await mkdtemp(join(tmpdir(), 'svc-ort-home-'));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
    delete env.ORT_DISABLE_TELEMETRY;
    delete env.XDG_CACHE_HOME;
    for (const name of CI_MARKERS) delete env[name];
    await promisify(execFile)(process.execPath, [CHILD, mode], { env, timeout: 60_000 });
    return existsSync(telemetryStore(home));
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

describe('onnxruntime telemetry is off wherever the service creates a session', function () {
  this.timeout(120_000);

  it('control: onnxruntime-node on its own starts its telemetry (what the service turns off)', async () => {
    expect(await telemetryStarted('raw')).to.equal(true);
  });

  it('a session on the main thread (the Silero detector) starts none', async () => {
    expect(await telemetryStarted('detector')).to.equal(false);
  });

  it("a session in a worker pool's thread starts none", async () => {
    expect(await telemetryStarted('pool')).to.equal(false);
  });
});
