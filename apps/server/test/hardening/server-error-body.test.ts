import { expect } from 'chai';
import { EngineError, InternalError } from '@svc/core';
import { restErrorBody, withoutInternals } from '@svc/adapters-http';

/** Issue 7, point 4: a 500 body never shows a server path or a stack frame, whatever the message was built from. */
describe('hardening: 500 bodies carry no paths or stacks', () => {
  const cases = [
    "flite: ENOENT: no such file or directory, open '/tmp/svc-flite-Ab12/t1/out.wav'",
    'engine crashed: Error: boom\n    at runFlite (file:///work/app/dist/flite-worker.js:10:3)\n    at process (node:internal/x:1:1)',
    'cannot read /var/lib/svc/data/voices/abc.json',
  ];
  for (const message of cases) {
    it(`scrubs ${JSON.stringify(message.slice(0, 40))}`, () => {
      const body = restErrorBody(new EngineError(message));
      expect(body.error.message).to.not.match(/\/(tmp|work|var)\//);
      expect(body.error.message).to.not.match(/\bat\s+\S+\s+\(/);
      expect(body.error.type).to.equal('engine_error');
    });
  }
  it('keeps URLs and ordinary words, and leaves 4xx messages alone', () => {
    expect(withoutInternals('The language model at http://127.0.0.1:8080/v1 is unreachable')).to.include('http://127.0.0.1:8080/v1');
    expect(restErrorBody(new InternalError()).error.message).to.equal('The server had an error while processing your request.');
  });
});
