/** RTP payload types of RFC 6184 (H.264 over RTP, packetization mode 1). */
const STAP_A = 24;
const FU_A = 28;

/**
 * The RTP payloads of one H.264 access unit (NAL units without start codes), packetization mode 1
 * (RFC 6184): runs of small NAL units go together in one STAP-A (SPS, PPS and a small slice in one
 * packet), a NAL unit alone that fits goes as it is, a bigger one is cut into FU-A fragments. No
 * payload exceeds `maxPayload` bytes (1200 keeps the packet under any path MTU with SRTP and
 * header extensions). The caller sets the marker bit on the last payload (end of the frame).
 */
export function packetizeH264(nalUnits: readonly Uint8Array[], maxPayload = 1200): Uint8Array[] {
  const payloads: Uint8Array[] = [];
  let run: Uint8Array[] = [];
  let runBytes = 1; // the STAP-A header
  const flush = (): void => {
    if (run.length === 1) payloads.push(run[0]!);
    else if (run.length > 1) payloads.push(stapA(run, runBytes));
    run = [];
    runBytes = 1;
  };
  for (const nal of nalUnits) {
    if (nal.length === 0) continue;
    if (nal.length > maxPayload) {
      flush();
      payloads.push(...fuA(nal, maxPayload));
      continue;
    }
    if (runBytes + 2 + nal.length > maxPayload) flush();
    run.push(nal);
    runBytes += 2 + nal.length;
  }
  flush();
  return payloads;
}

function stapA(units: Uint8Array[], bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  // F: any unit's forbidden bit; NRI: the highest of the units'
  let f = 0;
  let nri = 0;
  for (const u of units) {
    f |= u[0]! & 0x80;
    nri = Math.max(nri, u[0]! & 0x60);
  }
  out[0] = f | nri | STAP_A;
  let at = 1;
  for (const u of units) {
    out[at] = u.length >> 8;
    out[at + 1] = u.length & 0xff;
    out.set(u, at + 2);
    at += 2 + u.length;
  }
  return out;
}

function fuA(nal: Uint8Array, maxPayload: number): Uint8Array[] {
  const indicator = (nal[0]! & 0xe0) | FU_A;
  const type = nal[0]! & 0x1f;
  const chunk = maxPayload - 2;
  const out: Uint8Array[] = [];
  for (let at = 1; at < nal.length; at += chunk) {
    const end = Math.min(nal.length, at + chunk);
    const payload = new Uint8Array(2 + end - at);
    payload[0] = indicator;
    payload[1] = (at === 1 ? 0x80 : 0) | (end === nal.length ? 0x40 : 0) | type;
    payload.set(nal.subarray(at, end), 2);
    out.push(payload);
  }
  return out;
}
