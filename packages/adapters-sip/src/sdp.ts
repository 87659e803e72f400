/**
 * The SDP of a phone call (RFC 4566, offer/answer RFC 3264): what the caller offers (where its RTP
 * goes, which codecs) and the answer (where ours comes from, the codec chosen). Only what a G.711
 * call needs is read; the rest of an offer is ignored. Sizes are bounded by the SIP message limit
 * and by the counts below, so an SDP bomb (thousands of m-lines or formats) is refused cheaply.
 */
export type G711Codec = 'PCMU' | 'PCMA';

export interface AudioOffer {
  /** Where the caller receives RTP (until its first packet tells otherwise: symmetric RTP). */
  address: string;
  port: number;
  /** The codec chosen: the caller's first G.711 format, with its payload type. */
  codec: G711Codec;
  payloadType: number;
  /** RFC 4733 telephone-event's payload type, when offered at 8 kHz. */
  telephoneEvent: number | null;
  /** The caller's direction (media-level, else session-level): a re-INVITE with `sendonly` or `inactive` holds the call. */
  direction: 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';
}

export class SdpError extends Error {
  constructor(
    message: string,
    /** 488: no common codec or media; 400: not an SDP at all. */
    readonly status: 400 | 488,
  ) {
    super(message);
  }
}

const MAX_LINES = 256;
const MAX_MEDIA = 8;
const MAX_FORMATS = 64;
/** The static payload types of RFC 3551. */
const STATIC: Record<number, G711Codec> = { 0: 'PCMU', 8: 'PCMA' };

export function parseAudioOffer(sdp: string): AudioOffer {
  const lines = sdp.split(/\r?\n/).filter((l) => l !== '');
  if (lines.length > MAX_LINES) throw new SdpError(`the SDP has more than ${MAX_LINES} lines`, 400);
  if (!lines[0]?.startsWith('v=0')) throw new SdpError('the body is not an SDP (no v=0)', 400);
  let sessionAddress: string | null = null;
  let sessionDirection: AudioOffer['direction'] = 'sendrecv';
  let media = 0;
  let audio: {
    port: number;
    formats: number[];
    address: string | null;
    rtpmap: Map<number, string>;
    direction: AudioOffer['direction'] | null;
  } | null = null;
  let inAudio = false;
  for (const line of lines) {
    if (!/^[a-z]=/.test(line)) throw new SdpError('an SDP line that is not type=value', 400);
    const value = line.slice(2);
    if (line.startsWith('m=')) {
      if (++media > MAX_MEDIA) throw new SdpError(`the SDP has more than ${MAX_MEDIA} media lines`, 400);
      const m = /^audio (\d{1,5}) RTP\/AVP((?: \d{1,3})+)$/.exec(value);
      inAudio = !!m && audio === null && Number(m[1]) > 0;
      if (inAudio) {
        const formats = m![2]!.trim().split(' ').map(Number);
        if (formats.length > MAX_FORMATS) throw new SdpError(`an m-line with more than ${MAX_FORMATS} formats`, 400);
        audio = { port: Number(m![1]), formats, address: null, rtpmap: new Map(), direction: null };
      }
      continue;
    }
    const conn = line.startsWith('c=') ? /^IN IP[46] ([0-9A-Fa-f.:]+)(?:\/\d+)*$/.exec(value) : null;
    if (line.startsWith('c=') && !conn) throw new SdpError('a c= line that is not "IN IP4 address"', 400);
    const dir = /^a=(sendrecv|sendonly|recvonly|inactive)$/.exec(line)?.[1] as AudioOffer['direction'] | undefined;
    if (media === 0) {
      if (conn) sessionAddress = conn[1]!;
      if (dir) sessionDirection = dir;
      continue;
    }
    if (!inAudio || !audio) continue;
    if (conn) audio.address = conn[1]!;
    if (dir) audio.direction = dir;
    const rtpmap = /^a=rtpmap:(\d{1,3}) ([^/\s]+)\/(\d+)/.exec(line);
    if (rtpmap) audio.rtpmap.set(Number(rtpmap[1]), `${rtpmap[2]!.toUpperCase()}/${rtpmap[3]}`);
  }
  if (!audio) throw new SdpError('the offer has no audio over RTP/AVP', 488);
  const address = audio.address ?? sessionAddress;
  if (!address) throw new SdpError('the offer says no address for its audio (no c= line)', 400);
  const codecOf = (pt: number): G711Codec | null => {
    const mapped = audio.rtpmap.get(pt);
    if (mapped === 'PCMU/8000') return 'PCMU';
    if (mapped === 'PCMA/8000') return 'PCMA';
    return mapped === undefined ? (STATIC[pt] ?? null) : null;
  };
  const chosen = audio.formats.find((pt) => codecOf(pt) !== null);
  if (chosen === undefined) throw new SdpError('no common codec: this service speaks PCMU and PCMA (G.711, 8 kHz)', 488);
  const telephoneEvent = audio.formats.find((pt) => audio.rtpmap.get(pt) === 'TELEPHONE-EVENT/8000') ?? null;
  return {
    address,
    port: audio.port,
    codec: codecOf(chosen)!,
    payloadType: chosen,
    telephoneEvent,
    direction: audio.direction ?? sessionDirection,
  };
}

/** The answer: one audio m-line with the chosen codec (and telephone-event when offered), from `address:port`. */
export function buildAudioAnswer(offer: AudioOffer, local: { address: string; port: number; sessionId: number }): string {
  const ip = local.address.includes(':') ? 'IP6' : 'IP4';
  const formats = [offer.payloadType, ...(offer.telephoneEvent !== null ? [offer.telephoneEvent] : [])];
  const direction = { sendrecv: 'sendrecv', sendonly: 'recvonly', recvonly: 'sendonly', inactive: 'inactive' }[offer.direction];
  return [
    'v=0',
    `o=svc ${local.sessionId} ${local.sessionId} IN ${ip} ${local.address}`,
    's=svc realtime',
    `c=IN ${ip} ${local.address}`,
    't=0 0',
    `m=audio ${local.port} RTP/AVP ${formats.join(' ')}`,
    `a=rtpmap:${offer.payloadType} ${offer.codec}/8000`,
    ...(offer.telephoneEvent !== null
      ? [`a=rtpmap:${offer.telephoneEvent} telephone-event/8000`, `a=fmtp:${offer.telephoneEvent} 0-16`]
      : []),
    'a=ptime:20',
    `a=${direction}`,
    '',
  ].join('\r\n');
}
