import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const KAMAILIO = '/usr/sbin/kamailio';

/** Whether Debian's kamailio is installed (scripts/setup-test-sip.sh); tests skip, saying so, without it. */
export function hasKamailio(): boolean {
  return spawnSync(KAMAILIO, ['-v'], { stdio: 'ignore' }).error === undefined;
}

/** A free UDP port on loopback (kamailio takes its port from its configuration). */
async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

export interface Proxy {
  port: number;
  output(): string;
  stop(): Promise<void>;
}

/**
 * A real SIP proxy (kamailio) on loopback in front of the service: a minimal configuration that
 * record-routes every dialog-creating request and forwards new ones to `target`; requests inside a
 * dialog follow their Route headers (loose routing), and one without a Route for this proxy is
 * refused with 404, so the service must send its in-dialog requests (BYE) along the route set.
 */
export async function startKamailio(target: { host: string; port: number }): Promise<Proxy> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-kamailio-'));
  const port = await freeUdpPort();
  const config = `#!KAMAILIO
debug=2
log_stderror=yes
fork=yes
children=1
listen=udp:127.0.0.1:${port}
disable_tcp=yes
mpath="/usr/lib/x86_64-linux-gnu/kamailio/modules/"
loadmodule "tm.so"
loadmodule "sl.so"
loadmodule "rr.so"
loadmodule "pv.so"
loadmodule "maxfwd.so"
loadmodule "xlog.so"
loadmodule "siputils.so"
loadmodule "textops.so"
modparam("rr", "enable_full_lr", 1)

request_route {
  if (!mf_process_maxfwd_header("10")) { sl_send_reply("483", "Too Many Hops"); exit; }
  xlog("L_INFO", "kamailio: $rm $ru from $si:$sp route=[$hdr(Route)]\\n");
  if (has_totag()) {
    if (loose_route()) { t_relay(); exit; }
    if (is_method("ACK")) { if (t_check_trans()) { t_relay(); } exit; }
    sl_send_reply("404", "Not here: no Route to this proxy");
    exit;
  }
  if (is_method("CANCEL")) { if (t_check_trans()) { t_relay(); } exit; }
  record_route();
  $du = "sip:${target.host}:${target.port}";
  t_relay();
}
`;
  writeFileSync(join(dir, 'kamailio.cfg'), config);
  const child: ChildProcess = spawn(
    KAMAILIO,
    ['-f', join(dir, 'kamailio.cfg'), '-DD', '-E', '-m', '32', '-M', '8', '-Y', dir, '-P', join(dir, 'kamailio.pid')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let printed = '';
  const onData = (d: Buffer) => (printed += d.toString());
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // ready once it listens (it says so), or failed
  const deadline = Date.now() + 15_000;
  while (!/listening on|Listening on/.test(printed)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`kamailio did not start:\n${printed.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    output: () => printed,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
