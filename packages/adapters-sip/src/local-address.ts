import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';

/**
 * The address this host sends from to reach `peer`: the kernel's route, found by connecting a UDP
 * socket (nothing is sent). Bound to every interface (0.0.0.0) with no advertised address, it is
 * the address a caller on any network reaches this host at, where loopback would tell a PBX on
 * another host to send its RTP, ACK and BYE to itself. Null when there is no route.
 */
export async function localAddressToward(peer: string): Promise<string | null> {
  const socket = createSocket(isIP(peer) === 6 ? 'udp6' : 'udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(9, peer, () => resolve());
    });
    // a dual-stack socket names an IPv4 caller's route in IPv4-mapped form: SDP wants it as IPv4
    return socket.address().address.replace(/^::ffff:(?=\d+\.)/, '');
  } catch {
    return null;
  } finally {
    socket.close();
  }
}
