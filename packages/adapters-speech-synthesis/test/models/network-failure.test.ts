import { expect } from 'chai';
import { createServer, type AddressInfo } from 'node:net';
import { describeNetworkFailure } from '../../src/models/network-failure.js';

/** Node fetch's errors as they arrive (TypeError "fetch failed" with the system error as its cause). */
const fetchFailed = (cause: object) => Object.assign(new TypeError('fetch failed'), { cause });

describe('describeNetworkFailure: why the hub could not be reached, in words', () => {
  it('a refused connection (real): the address and "connection refused"', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const error = await fetch(`http://127.0.0.1:${port}/`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(describeNetworkFailure(error)).to.deep.equal({
      host: `127.0.0.1:${port}`,
      reason: 'connection refused (ECONNREFUSED: nothing listens there, or a firewall rejects it)',
    });
  });

  it('DNS, timeouts, unreachable networks and TLS, from the codes Node gives them (not producible on loopback)', () => {
    expect(
      describeNetworkFailure(
        fetchFailed({ code: 'ENOTFOUND', hostname: 'huggingface.co', message: 'getaddrinfo ENOTFOUND huggingface.co' }),
      ),
    ).to.deep.equal({
      host: 'huggingface.co',
      reason: 'DNS lookup failed (ENOTFOUND: no such host, or no DNS server answers: offline?)',
    });
    expect(describeNetworkFailure(fetchFailed({ code: 'EAI_AGAIN', hostname: 'huggingface.co', message: 'x' }))?.reason).to.match(
      /^DNS lookup failed \(EAI_AGAIN/,
    );
    expect(describeNetworkFailure(fetchFailed({ code: 'UND_ERR_CONNECT_TIMEOUT', message: 'Connect Timeout Error' }))).to.deep.equal({
      host: null,
      reason: 'the connection timed out (a firewall dropping packets, or offline)',
    });
    // Happy eyeballs: an AggregateError of one error per address.
    const aggregate = Object.assign(
      new AggregateError([{ code: 'ENETUNREACH', address: '2600::1', port: 443, message: 'connect ENETUNREACH' }]),
      { code: 'ENETUNREACH' },
    );
    expect(describeNetworkFailure(fetchFailed(aggregate))).to.deep.equal({
      host: '2600::1:443',
      reason: 'network unreachable (ENETUNREACH: no route; offline?)',
    });
    expect(describeNetworkFailure(fetchFailed({ code: 'CERT_HAS_EXPIRED', message: 'certificate has expired' }))?.reason).to.contain(
      'NODE_EXTRA_CA_CERTS',
    );
    expect(describeNetworkFailure(new Error('no cause'))).to.equal(null);
  });
});
