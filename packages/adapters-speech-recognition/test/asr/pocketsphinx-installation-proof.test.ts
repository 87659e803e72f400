import { expect } from 'chai';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PocketsphinxSpeechRecognizer } from '../../src/index.js';

/**
 * `warmDecoders: 0` (a server whose realtime engines load lazily): the first recognizer of a process
 * loads one decoder to prove the installation works and stops it; the next ones with the same
 * settings trust that proof and start no process. Counted with a python that notes each launch.
 */
describe('PocketsphinxSpeechRecognizer: the installation is proven once per process', function () {
  this.timeout(60_000);
  let dir: string;
  let launches: string;
  let python: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-proof-'));
    launches = join(dir, 'launches');
    writeFileSync(launches, '');
    // A python of its own: no other test of this process has proven this installation.
    python = join(dir, 'python3');
    writeFileSync(python, `#!/bin/sh\necho launch >> '${launches}'\nexec /usr/bin/python3 "$@"\n`);
    chmodSync(python, 0o755);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const launched = () => readFileSync(launches, 'utf8').split('\n').filter(Boolean).length;

  it('loads one decoder at the first create, none at the next, and neither holds one', async () => {
    const first = await PocketsphinxSpeechRecognizer.create({ python, warmDecoders: 0 });
    expect(launched(), 'decoders launched by the first create').to.equal(1);
    expect(first.load.started, 'decoders the first holds').to.equal(0);
    const second = await PocketsphinxSpeechRecognizer.create({ python, warmDecoders: 0 });
    expect(launched(), 'decoders launched by both').to.equal(1);
    expect(second.load.started).to.equal(0);
    // What the proof read carries over: Debian's build lets the decoders set their cepstral mean.
    expect(second.speakerNormalization).to.equal(first.speakerNormalization).and.to.equal(true);
    const text = await second.transcribe({ samples: new Int16Array(16000), sampleRate: 16000 }, { language: 'en', principal: {} as never });
    expect(text.text).to.be.a('string');
    expect(launched(), 'the first turn starts its decoder').to.equal(2);
    first.close();
    second.close();
  });

  it('a python that cannot run fails every create, proven or not', async () => {
    const broken = join(dir, 'broken-python');
    writeFileSync(broken, '#!/bin/sh\nexit 3\n');
    chmodSync(broken, 0o755);
    for (let i = 0; i < 2; i++) {
      const err = await PocketsphinxSpeechRecognizer.create({ python: broken, warmDecoders: 0 }).then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.message).to.contain('pocketsphinx could not start');
    }
  });
});
