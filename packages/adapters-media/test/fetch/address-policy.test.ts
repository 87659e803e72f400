import { expect } from 'chai';
import { AddressPolicy } from '../../src/index.js';

describe('AddressPolicy (which addresses a media fetch may reach)', () => {
  const policy = new AddressPolicy();

  it('accepts public unicast addresses', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '151.101.1.69']) expect(policy.refusal(a), a).to.equal(null);
  });

  it('refuses private, loopback, link-local, unique-local, CGNAT, multicast, unspecified and metadata addresses', () => {
    const refused = [
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1', // private
      '127.0.0.1',
      '127.9.9.9',
      '::1', // loopback
      '169.254.169.254',
      '169.254.1.1',
      'fe80::1', // link-local (incl. cloud metadata)
      'fd00:ec2::254',
      'fc00::1', // unique-local (incl. AWS IPv6 metadata)
      '100.64.0.1',
      '100.100.100.200', // carrier-grade NAT (incl. Alibaba metadata)
      '224.0.0.1',
      'ff02::1', // multicast
      '0.0.0.0',
      '::',
      '255.255.255.255', // unspecified / broadcast
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1', // IPv4-mapped IPv6 judged as IPv4
      '192.0.2.1',
      '198.18.0.1', // documentation / benchmarking (reserved)
    ];
    for (const a of refused) expect(policy.refusal(a), a).to.be.a('string');
  });

  it('names the reason', () => {
    expect(policy.refusal('10.0.0.1')).to.equal('a private address');
    expect(policy.refusal('127.0.0.1')).to.equal('a loopback address');
    expect(policy.refusal('169.254.169.254')).to.equal('a cloud metadata address');
    expect(policy.refusal('fd00:ec2::254')).to.equal('a cloud metadata address');
    expect(policy.refusal('fc00::1')).to.equal('a unique-local address');
    expect(policy.refusal('0.0.0.0')).to.equal('an unspecified address');
    expect(policy.refusal('::')).to.equal('an unspecified address');
  });

  it('an operator allowlist opens host names (and their subdomains), single addresses and CIDR ranges', () => {
    const allow = new AddressPolicy(['media.internal', '*.corp.example', '10.20.0.0/16', '127.0.0.1', 'fd12::/16']);
    expect(allow.hostAllowed('media.internal')).to.equal(true);
    expect(allow.hostAllowed('MEDIA.internal.')).to.equal(true);
    expect(allow.hostAllowed('a.b.corp.example')).to.equal(true);
    expect(allow.hostAllowed('corp.example.evil.com')).to.equal(false);
    expect(allow.hostAllowed('other.internal')).to.equal(false);
    expect(allow.refusal('10.20.3.4')).to.equal(null);
    expect(allow.refusal('10.21.0.1')).to.be.a('string');
    expect(allow.refusal('127.0.0.1')).to.equal(null);
    expect(allow.refusal('127.0.0.2')).to.be.a('string');
    expect(allow.refusal('fd12::5')).to.equal(null);
  });

  it('refuses a malformed allowlist at startup', () => {
    expect(() => new AddressPolicy(['10.0.0.0/99'])).to.throw(/Invalid CIDR/);
  });
});
