/** RTP packets (RFC 3550 section 5.1): what a G.711 call reads and writes. */
export interface RtpPacket {
  payloadType: number;
  sequence: number;
  timestamp: number;
  ssrc: number;
  marker: boolean;
  payload: Buffer;
}

/** Parses a datagram; null when it is not RTP version 2 or its lengths do not add up (dropped, never thrown). */
export function parseRtp(data: Buffer): RtpPacket | null {
  if (data.length < 12 || data[0]! >> 6 !== 2) return null;
  const csrcCount = data[0]! & 0x0f;
  let offset = 12 + csrcCount * 4;
  if (data[0]! & 0x10) {
    if (data.length < offset + 4) return null;
    offset += 4 + data.readUInt16BE(offset + 2) * 4;
  }
  let end = data.length;
  if (data[0]! & 0x20) end -= data[data.length - 1]!;
  if (offset > end) return null;
  return {
    payloadType: data[1]! & 0x7f,
    marker: (data[1]! & 0x80) !== 0,
    sequence: data.readUInt16BE(2),
    timestamp: data.readUInt32BE(4),
    ssrc: data.readUInt32BE(8),
    payload: data.subarray(offset, end),
  };
}

export function serializeRtp(packet: RtpPacket): Buffer {
  const header = Buffer.alloc(12);
  header[0] = 0x80;
  header[1] = (packet.marker ? 0x80 : 0) | (packet.payloadType & 0x7f);
  header.writeUInt16BE(packet.sequence & 0xffff, 2);
  header.writeUInt32BE(packet.timestamp >>> 0, 4);
  header.writeUInt32BE(packet.ssrc >>> 0, 8);
  return Buffer.concat([header, packet.payload]);
}
