import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';

const indexUrl = pathToFileURL(fileURLToPath(new URL('../src/index.js', import.meta.url))).href;

/**
 * A child node process whose module resolution refuses `werift` (a loader hook that throws), then
 * imports this package and asks the service to warm: what it prints says when werift is needed.
 */
function importWithoutWerift(): string[] {
  const hook = `export async function resolve(specifier, context, next) { if (specifier === 'werift') throw new Error('werift was imported'); return next(specifier, context); }`;
  const script = `
    import { register } from 'node:module';
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
    const m = await import(${JSON.stringify(indexUrl)});
    console.log('package imported');
    const calls = new m.WebRtcCallService({ registry: {}, createSession() {}, checkSession() {}, opus: {}, newCallId: () => 'rtc_x' }, {});
    try { await calls.warm(); console.log('warmed'); } catch (err) { console.log('warm failed: ' + err.message); }
  `;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n');
}

describe('the WebRTC stack loads with the first call, not with the package (idle footprint)', () => {
  it('importing @svc/adapters-webrtc does not import werift; warm() (the first call, or SVC_WEBRTC_WARM_UP) does', function () {
    this.timeout(30_000);
    // Fails on a package whose index re-exports PeerCall or RtpAudioTrack as values: the import throws.
    expect(importWithoutWerift()).to.deep.equal(['package imported', 'warm failed: werift was imported']);
  });
});
