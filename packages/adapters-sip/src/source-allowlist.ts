import { BlockList, isIP } from 'node:net';

/** Who may send SIP: addresses and CIDR ranges (SVC_SIP_ALLOWED_SOURCES); nobody else gets past 403. */
export class SourceAllowlist {
  private readonly list = new BlockList();

  constructor(entries: readonly string[]) {
    for (const entry of entries) this.add(entry);
  }

  allows(address: string): boolean {
    return this.list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }

  private add(entry: string): void {
    const [address, bits] = entry.trim().split('/');
    const family = isIP(address ?? '');
    if (!family) throw new Error(`'${entry}' is not an address or a CIDR range`);
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) this.list.addAddress(address!, type);
    else this.list.addSubnet(address!, Number(bits), type);
  }
}
