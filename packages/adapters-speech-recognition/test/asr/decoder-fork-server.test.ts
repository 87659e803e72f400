import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { librivoxClip } from '@svc/adapters-testing';
import { POCKETSPHINX_DECODER_ARGS } from '../../src/asr/pocketsphinx-speech-recognizer.js';
import { DEBIAN_PYTHON, PocketsphinxHelper, POCKETSPHINX_HELPER_SCRIPT } from '../../src/asr/pocketsphinx-helper.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function stat(pid: number): { name: string; parent: number } {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return {
    name: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')),
    parent: Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]),
  };
}

/** Proportional set size (kB): its private memory plus its share of what it shares with others. */
function pss(pid: number): number {
  return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))![1]);
}

/**
 * The decoder's pid. Its ready line comes over its socket and the fork server's report of its pid over
 * the server's pipe, in either order.
 */
async function pidOf(helper: PocketsphinxHelper): Promise<number> {
  await helper.ready;
  for (let i = 0; i < 100 && helper.pid === undefined; i++) await sleep(10);
  return helper.pid!;
}

async function started(helper: PocketsphinxHelper): Promise<number> {
  const begun = performance.now();
  await helper.ready;
  return performance.now() - begun;
}

async function decode(helper: PocketsphinxHelper, id: string): Promise<string> {
  helper.begin('', true);
  helper.write(librivoxClip(id).samples);
  return helper.end();
}

// Decoders forked from one loaded model (python/decoder_fork_server.py) against ones that load their own.
describe('pocketsphinx decoders forked by the fork server', function () {
  this.timeout(60_000);
  const helpers: PocketsphinxHelper[] = [];
  const forked = () => {
    const helper = new PocketsphinxHelper(DEBIAN_PYTHON, POCKETSPHINX_HELPER_SCRIPT, POCKETSPHINX_DECODER_ARGS);
    helpers.push(helper);
    return helper;
  };
  after(() => helpers.forEach((h) => h.kill()));

  it('forks every decoder from one process that loaded the model, each decoding on its own', async () => {
    const [a, b] = [forked(), forked()];
    const [first, second] = (await Promise.all([pidOf(a), pidOf(b)])).map(stat);
    expect(first.name).to.equal('svc-decoder');
    expect(second.parent, 'the same parent').to.equal(first.parent);
    expect(stat(first.parent).name).to.equal('svc-decoders');
    expect(readFileSync(`/proc/${first.parent}/cmdline`, 'utf8')).to.include('decoder_fork_server.py');
    const [heard, other] = await Promise.all([decode(a, '0880'), decode(b, '0930')]);
    expect(heard).to.include('young man');
    expect(other).to.include('made amiable');
  });

  it('a forked decoder is ready far sooner than one loading its own model, and shares its memory', async () => {
    await forked().ready; // the fork server has its model
    const direct = new PocketsphinxHelper(DEBIAN_PYTHON, POCKETSPHINX_HELPER_SCRIPT, POCKETSPHINX_DECODER_ARGS, { direct: true });
    helpers.push(direct);
    const loading = await started(direct);
    const fork = forked();
    const forking = await started(fork);
    console.log(`      ready after ${forking.toFixed(0)} ms forked, ${loading.toFixed(0)} ms loading its own model`);
    expect(forking).to.be.below(loading / 3);
    // Both have decoded the same sentence: what each holds on its own.
    expect(await decode(direct, '0880')).to.equal(await decode(fork, '0880'));
    const [own, shared] = [pss(await pidOf(direct)), pss(await pidOf(fork))];
    console.log(`      memory (PSS) ${Math.round(shared / 1024)} MB forked, ${Math.round(own / 1024)} MB on its own`);
    expect(shared).to.be.below(own * 0.7);
  });

  it('a killed decoder is reported gone, and the next one is forked as before', async () => {
    const doomed = forked();
    const parent = stat(await pidOf(doomed)).parent;
    doomed.kill();
    for (let i = 0; i < 100 && doomed.alive; i++) await sleep(20);
    expect(doomed.alive).to.equal(false);
    const next = forked();
    expect(stat(await pidOf(next)).parent).to.equal(parent);
    expect(await decode(next, '0880')).to.include('young man');
  });

  it('a model that does not load: each decoder fails saying why', async () => {
    const broken = new PocketsphinxHelper(DEBIAN_PYTHON, POCKETSPHINX_HELPER_SCRIPT, ['-hmm', '/nonexistent/model']);
    helpers.push(broken);
    const err = await broken.ready.then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).to.contain('could not load its model');
  });
});
