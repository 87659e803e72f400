/**
 * The IETF special-purpose address blocks (IANA "IPv4 Special-Purpose Address Registry" and
 * "IPv6 Special-Purpose Address Registry", plus the documentation prefix 3fff::/20 of RFC 9637).
 * A media fetch refuses all of them: even the few marked "globally reachable" there (6to4 relays,
 * AS112, AMT, the Teredo and NAT64 prefixes) are relays or translators that can carry a request to
 * an address the range rules would refuse, e.g. ::127.0.0.1 or 64:ff9b::7f00:1.
 *
 * For IPv6 the table is the complement of global unicast (2000::/3) and then the special blocks
 * inside it: everything outside 2000::/3 is unassigned or special (::/96 IPv4-compatible,
 * ::ffff:0:0/96 IPv4-mapped, 64:ff9b::/96, 100::/64, fc00::/7, fe80::/10, ff00::/8, 5f00::/16...).
 */
export const SPECIAL_PURPOSE_IPV4: ReadonlyArray<readonly [cidr: string, name: string]> = [
  ['0.0.0.0/8', '"this network"'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignment'],
  ['192.0.2.0/24', 'documentation'],
  ['192.31.196.0/24', 'AS112'],
  ['192.52.193.0/24', 'AMT'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['192.175.48.0/24', 'AS112'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'broadcast'],
];

/** Special blocks inside 2000::/3 (anything outside 2000::/3 is refused as well). */
export const SPECIAL_PURPOSE_IPV6_IN_GLOBAL: ReadonlyArray<readonly [cidr: string, name: string]> = [
  ['2001::/23', 'IETF protocol assignment (Teredo, benchmarking, ORCHID...)'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['2620:4f:8000::/48', 'AS112'],
  ['3fff::/20', 'documentation'],
];

export const GLOBAL_UNICAST_IPV6 = '2000::/3';
