import { expect } from 'chai';
import { AddressPolicy } from '../../src/index.js';

/**
 * Issue 7, point 5: every IETF special-purpose block is refused (IANA IPv4 and IPv6 special-purpose
 * registries, RFC 9637). One row per block: an address inside it, and the first address past it
 * that is ordinary public unicast where there is one.
 */
const REFUSED: Array<[block: string, address: string]> = [
  ['0.0.0.0/8', '0.1.2.3'],
  ['10.0.0.0/8', '10.255.255.255'],
  ['100.64.0.0/10', '100.127.0.1'],
  ['127.0.0.0/8', '127.1.2.3'],
  ['169.254.0.0/16', '169.254.0.1'],
  ['172.16.0.0/12', '172.31.255.254'],
  ['192.0.0.0/24', '192.0.0.9'],
  ['192.0.2.0/24', '192.0.2.200'],
  ['192.31.196.0/24', '192.31.196.1'],
  ['192.52.193.0/24', '192.52.193.1'],
  ['192.88.99.0/24', '192.88.99.1'],
  ['192.168.0.0/16', '192.168.0.1'],
  ['192.175.48.0/24', '192.175.48.1'],
  ['198.18.0.0/15', '198.19.255.1'],
  ['198.51.100.0/24', '198.51.100.7'],
  ['203.0.113.0/24', '203.0.113.7'],
  ['224.0.0.0/4', '239.1.1.1'],
  ['240.0.0.0/4', '250.1.2.3'],
  ['255.255.255.255/32', '255.255.255.255'],
  ['::/128', '::'],
  ['::1/128', '::1'],
  ['::/96 IPv4-compatible', '::7f00:1'],
  ['::/96 IPv4-compatible (public v4 inside)', '::8.8.8.8'],
  ['::ffff:0:0/96 IPv4-mapped (private v4 inside)', '::ffff:127.0.0.1'],
  ['64:ff9b::/96 NAT64', '64:ff9b::7f00:1'],
  ['64:ff9b:1::/48 local NAT64', '64:ff9b:1::1'],
  ['100::/64 discard', '100::1'],
  ['2001::/23 IETF', '2001:1::1'],
  ['2001::/32 Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  ['2001:2::/48 benchmarking', '2001:2::1'],
  ['2001:10::/28 ORCHID', '2001:10::1'],
  ['2001:20::/28 ORCHIDv2', '2001:20::1'],
  ['2001:db8::/32 documentation', '2001:db8::1'],
  ['2002::/16 6to4', '2002:7f00:1::1'],
  ['2620:4f:8000::/48 AS112', '2620:4f:8000::1'],
  ['3fff::/20 documentation', '3fff::1'],
  ['5f00::/16 SRv6', '5f00::1'],
  ['fc00::/7 unique-local', 'fd12:3456::1'],
  ['fe80::/10 link-local', 'fe80::1'],
  ['fec0::/10 site-local', 'fec0::1'],
  ['ff00::/8 multicast', 'ff0e::1'],
  ['outside 2000::/3', '4000::1'],
];

const ACCEPTED = [
  '8.8.8.8',
  '1.1.1.1',
  '192.0.3.1',
  '198.20.0.1',
  '100.128.0.1',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450::1',
];

describe('AddressPolicy: every IETF special-purpose range is refused (table-driven)', () => {
  const policy = new AddressPolicy();
  for (const [block, address] of REFUSED) {
    it(`refuses ${address} (${block})`, () => {
      expect(policy.refusal(address)).to.be.a('string');
    });
  }
  it('still accepts ordinary public unicast, including addresses right next to special blocks', () => {
    for (const address of ACCEPTED) expect(policy.refusal(address), address).to.equal(null);
  });
  it('an operator allowlist still opens a special block on purpose', () => {
    expect(new AddressPolicy(['198.18.0.0/15']).refusal('198.18.0.1')).to.equal(null);
  });
});
