import ipaddr from 'ipaddr.js';
import { GLOBAL_UNICAST_IPV6, SPECIAL_PURPOSE_IPV4, SPECIAL_PURPOSE_IPV6_IN_GLOBAL } from './special-purpose-ranges.js';

type Address = ReturnType<typeof ipaddr.parse>;
type Range = readonly [Address, number, string];

const parseTable = (table: ReadonlyArray<readonly [string, string]>): Range[] =>
  table.map(([cidr, name]) => [...ipaddr.parseCIDR(cidr), name] as const);
const SPECIAL_V4 = parseTable(SPECIAL_PURPOSE_IPV4);
const SPECIAL_V6 = parseTable(SPECIAL_PURPOSE_IPV6_IN_GLOBAL);
const GLOBAL_V6 = ipaddr.parseCIDR(GLOBAL_UNICAST_IPV6);

/**
 * Cloud metadata endpoints, named explicitly even though the range rules already cover them
 * (169.254.0.0/16 is link-local, fd00::/8 unique-local): they are the prize of most SSRF attacks.
 */
const METADATA_ADDRESSES = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'];

/**
 * Which addresses an outgoing media fetch may connect to. Only globally routable unicast
 * addresses outside every IETF special-purpose block (special-purpose-ranges.ts), unless an operator allowlisted a host name, an address or a CIDR range
 * (SVC_MEDIA_ALLOWED_HOSTS) for media on an internal network.
 */
export class AddressPolicy {
  private readonly hosts = new Set<string>();
  private readonly hostSuffixes: string[] = [];
  private readonly ranges: Array<[Address, number]> = [];

  constructor(allowlist: readonly string[] = []) {
    for (const raw of allowlist) {
      const entry = raw.trim().toLowerCase();
      if (!entry) continue;
      if (entry.includes('/')) {
        if (!ipaddr.isValidCIDR(entry)) throw new Error(`Invalid CIDR '${raw}' in the media allowlist.`);
        this.ranges.push(ipaddr.parseCIDR(entry));
      } else if (ipaddr.isValid(unbracket(entry))) {
        const address = ipaddr.process(unbracket(entry));
        this.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      } else if (entry.startsWith('*.') || entry.startsWith('.')) {
        this.hostSuffixes.push(entry.slice(entry.indexOf('.')));
      } else {
        this.hosts.add(entry);
      }
    }
  }

  /** True when the operator allowlisted this host name (any address it resolves to is accepted). */
  hostAllowed(hostname: string): boolean {
    const host = hostname.toLowerCase().replace(/\.$/, '');
    return this.hosts.has(host) || this.hostSuffixes.some((suffix) => host.endsWith(suffix));
  }

  /** Null when the address may be connected to, else the reason it may not. */
  refusal(addressText: string): string | null {
    if (!ipaddr.isValid(addressText)) return 'not an IP address';
    // For the allowlist an IPv4-mapped IPv6 (::ffff:10.0.0.1) is the IPv4 address it carries.
    const address = ipaddr.process(addressText);
    if (this.ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits))) return null;
    if (METADATA_ADDRESSES.some((m) => ipaddr.process(m).toString() === address.toString())) return 'a cloud metadata address';
    const range = address.range();
    if (range !== 'unicast') return `${describe(range)} address`;
    // Not processed: a mapped, IPv4-compatible or translated IPv6 form is refused as such.
    const raw = ipaddr.parse(addressText);
    if (raw.kind() === 'ipv4') {
      const special = SPECIAL_V4.find(([base, bits]) => raw.match(base, bits));
      return special ? `a special-purpose (${special[2]}) address` : null;
    }
    if (!raw.match(GLOBAL_V6)) return 'a special-purpose (non-global IPv6) address';
    const special = SPECIAL_V6.find(([base, bits]) => raw.match(base, bits));
    return special ? `a special-purpose (${special[2]}) address` : null;
  }
}

function unbracket(s: string): string {
  return s.startsWith('[') && s.endsWith(']') ? s.slice(1, -1) : s;
}

/** The kind of a non-unicast range, with its article ("an unspecified", "a unique-local"). */
function describe(range: string): string {
  const names: Record<string, string> = {
    private: 'a private',
    loopback: 'a loopback',
    linkLocal: 'a link-local',
    uniqueLocal: 'a unique-local',
    carrierGradeNat: 'a carrier-grade NAT',
    multicast: 'a multicast',
    unspecified: 'an unspecified',
    broadcast: 'a broadcast',
    reserved: 'a reserved',
  };
  return names[range] ?? `a non-public (${range})`;
}
