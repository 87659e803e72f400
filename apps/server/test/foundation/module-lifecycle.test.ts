import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { token } from '@svc/core';
import { buildContainer } from '../../src/container.js';
import { loadConfig } from '../../src/config.js';
import { defineModule, type ModuleContext, type ServerModule } from '../../src/composition/module.js';

/** A module that binds one resource and starts one task, recording each step in `log`. */
function recordingModule(name: string, log: string[], options: { stopHangs?: boolean } = {}): ServerModule {
  const resource = token<{ name: string }>(`test.lifecycle.${name}`);
  return defineModule({
    name,
    docs: 'README.md',
    settings: {},
    bind(provide) {
      provide(
        resource,
        () => {
          log.push(`bind ${name}`);
          return { name };
        },
        { close: () => void log.push(`close ${name}`) },
      );
    },
    start({ get }: ModuleContext) {
      log.push(`start ${name} (${get(resource).name} bound)`);
      return () => {
        log.push(`stop ${name}`);
        return options.stopHangs ? new Promise<void>(() => undefined) : undefined;
      };
    },
  });
}

describe('module lifecycle: start apart from binding, stopped in reverse before the bindings close', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'svc-lifecycle-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const config = () => loadConfig({ SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'silent' });

  it('binding starts nothing; start runs in module order; close stops in reverse, then closes bindings', async () => {
    const log: string[] = [];
    const services = await buildContainer(config(), new Map(), [recordingModule('a', log), recordingModule('b', log)]);
    expect(log).to.deep.equal(['bind a', 'bind b']);
    await services.start({ config: config(), get: services.get });
    expect(log.slice(2)).to.deep.equal(['start a (a bound)', 'start b (b bound)']);
    await services.close();
    expect(log.slice(4)).to.deep.equal(['stop b', 'stop a', 'close b', 'close a']);
  });

  it('a stop that never returns is given up at the deadline; the bindings are still closed', async () => {
    const log: string[] = [];
    const services = await buildContainer(config(), new Map(), [recordingModule('stuck', log, { stopHangs: true })]);
    await services.start({ config: config(), get: services.get });
    // No wall-clock bound: the stop never returns, so close() coming back at all is the deadline at work.
    const givenUp = await services.close(Date.now() + 300);
    // The stop is given up on; past the deadline the closers are still run, just not waited for.
    expect(givenUp[0]).to.equal('stuck (started tasks)');
    expect(log).to.include('close stuck');
  });
});
