import { expect } from 'chai';
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { startTestServer } from '../helpers/test-server.js';
import { startSipServer } from '../helpers/sip-server.js';

describe('SIP settings (real server)', function () {
  this.timeout(60_000);

  it('opens no SIP port unless SVC_SIP_PORT is set', async () => {
    const t = await startTestServer();
    try {
      expect(t.server.sip).to.equal(null);
    } finally {
      await t.close();
    }
  });

  it('an empty SVC_SIP_PORT (or SVC_WYOMING_PORT) is unset: no port, not any free port', () => {
    const settings = loadConfig({ SVC_SIP_PORT: '', SVC_SIP_API_KEY_ID: 'key_0123456789abcdef', SVC_WYOMING_PORT: '' }).settings;
    expect(settings.SVC_SIP_PORT).to.equal(undefined);
    expect(settings.SVC_WYOMING_PORT).to.equal(undefined);
    // nothing to act as is needed for a port that is off
    expect(() => loadConfig({ SVC_SIP_PORT: '' })).not.to.throw();
    expect(loadConfig({ SVC_SIP_PORT: '0', SVC_SIP_API_KEY_ID: 'key_0123456789abcdef' }).settings.SVC_SIP_PORT).to.equal(0);
  });

  it('refuses SVC_SIP_PORT without a key id, a key named by its secret, and a session that is not an object', () => {
    expect(() => loadConfig({ SVC_SIP_PORT: '5060' })).to.throw(/SVC_SIP_API_KEY_ID/);
    expect(() => loadConfig({ SVC_SIP_PORT: '5060', SVC_SIP_API_KEY_ID: 'svc-abc' })).to.throw(/by its id/);
    expect(() => loadConfig({ SVC_SIP_SESSION: '[1]' })).to.throw(/SVC_SIP_SESSION/);
    expect(() => loadConfig({ SVC_SIP_SESSION: '{"voice":' })).to.throw(/SVC_SIP_SESSION: not JSON/);
  });

  it('binds loopback by default, UDP and TCP on one port', async () => {
    const { t } = await startSipServer();
    try {
      const { address, port } = t.server.sip!.server.address;
      expect(address).to.equal('127.0.0.1');
      const tcp = connect(port, '127.0.0.1');
      await new Promise<void>((resolve, reject) => {
        tcp.once('connect', () => resolve());
        tcp.once('error', reject);
      });
      tcp.destroy();
    } finally {
      await t.close();
    }
  });

  it('a busy SVC_SIP_PORT stops the start with a message naming the setting', async () => {
    const holder = createSocket('udp4');
    await new Promise<void>((r) => holder.bind(0, '127.0.0.1', () => r()));
    try {
      const busy = String(holder.address().port);
      let error: Error | null = null;
      await startSipServer({ SVC_SIP_PORT: busy }).catch((err: Error) => (error = err));
      expect(String(error)).to.include(`SVC_SIP_PORT=${busy}`);
    } finally {
      holder.close();
    }
  });
});
