import type { SipAudioCodecName } from './rtp-audio-codec.js';

/**
 * The SDP of a phone call (RFC 4566, offer/answer RFC 3264): what the caller offers (where its RTP
 * goes, which codecs) and the answer (where ours comes from, the codec chosen). Only what a call
 * needs is read (G.711, Opus, telephone-event); the rest of an offer is ignored. Sizes are bounded
 * by the SIP message limit and by the counts below, so an SDP bomb (thousands of m-lines or
 * formats) is refused cheaply.
 */

export interface AudioOffer {
  /** Where the caller receives RTP (until its first packet tells otherwise: symmetric RTP). */
  address: string;
  port: number;
  /** The codec chosen: Opus when offered and the server has it, else the caller's first G.711 format; with its payload type. */
  codec: SipAudioCodecName;
  payloadType: number;
  /** RFC 4733 telephone-event's payload type, when offered (at the codec's clock rate, or 8 kHz). */
  telephoneEvent: number | null;
  /** telephone-event's RTP clock rate (its durations count in it). */
  telephoneEventRate: number;
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
const STATIC: Record<number, SipAudioCodecName> = { 0: 'PCMU', 8: 'PCMA' };
/** rtpmap encodings (upper-cased) this service speaks. */
const ENCODINGS: Record<string, SipAudioCodecName> = { 'PCMU/8000': 'PCMU', 'PCMA/8000': 'PCMA', 'OPUS/48000': 'opus' };
const CLOCK_RATE: Record<SipAudioCodecName, number> = { PCMU: 8000, PCMA: 8000, opus: 48000 };
/** The answer's rtpmap of each codec (RFC 7587: Opus is always named with 2 channels). */
const RTPMAP: Record<SipAudioCodecName, string> = { PCMU: 'PCMU/8000', PCMA: 'PCMA/8000', opus: 'opus/48000/2' };

export interface OfferOptions {
  /** Whether Opus may be chosen (the server has an Opus codec): then it is preferred over G.711. */
  opus: boolean;
  /** A re-offer in a call: only the call's codec may be chosen (a call keeps its codec; its payload type may change). */
  codec?: SipAudioCodecName;
}

export function parseAudioOffer(sdp: string, options: OfferOptions = { opus: false }): AudioOffer {
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
  /** Audio streams the offer disabled (port 0, RFC 3264 5.1): not answered, and no reason to refuse while another is usable. */
  let disabledAudio = 0;
  for (const line of lines) {
    if (!/^[a-z]=/.test(line)) throw new SdpError('an SDP line that is not type=value', 400);
    const value = line.slice(2);
    if (line.startsWith('m=')) {
      if (++media > MAX_MEDIA) throw new SdpError(`the SDP has more than ${MAX_MEDIA} media lines`, 400);
      const m = /^audio (\S+) RTP\/AVP((?: \d{1,3})+)$/.exec(value);
      const port = m ? audioPort(m[1]!) : 0;
      if (m && port === 0) disabledAudio++;
      inAudio = !!m && audio === null && port > 0;
      if (inAudio) {
        const formats = m![2]!.trim().split(' ').map(Number);
        if (formats.length > MAX_FORMATS) throw new SdpError(`an m-line with more than ${MAX_FORMATS} formats`, 400);
        audio = { port, formats, address: null, rtpmap: new Map(), direction: null };
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
  if (!audio && disabledAudio > 0)
    throw new SdpError('the offer disables its audio (port 0) and has no other audio stream over RTP/AVP to answer', 488);
  if (!audio) throw new SdpError('the offer has no audio over RTP/AVP', 488);
  const address = audio.address ?? sessionAddress;
  if (!address) throw new SdpError('the offer says no address for its audio (no c= line)', 400);
  const codecOf = (pt: number): SipAudioCodecName | null => {
    const mapped = audio.rtpmap.get(pt);
    const codec = mapped === undefined ? (STATIC[pt] ?? null) : (ENCODINGS[mapped] ?? null);
    return codec === 'opus' && !options.opus ? null : codec;
  };
  const only = options.codec;
  const chosen = only
    ? audio.formats.find((pt) => codecOf(pt) === only)
    : (audio.formats.find((pt) => codecOf(pt) === 'opus') ?? audio.formats.find((pt) => codecOf(pt) !== null));
  if (chosen === undefined && only) throw new SdpError(`the offer leaves out the call's codec (${only}): a call keeps its codec`, 488);
  if (chosen === undefined)
    throw new SdpError(`no common codec: this service speaks ${options.opus ? 'Opus, ' : ''}PCMU and PCMA (G.711, 8 kHz)`, 488);
  const codec = codecOf(chosen)!;
  // telephone-event at the codec's own clock (RFC 4733 asks for it), else at 8 kHz (what most phones send)
  const eventAt = (rate: number) => audio.formats.find((pt) => audio.rtpmap.get(pt) === `TELEPHONE-EVENT/${rate}`);
  const nativeEvent = eventAt(CLOCK_RATE[codec]);
  const telephoneEvent = nativeEvent ?? eventAt(8000) ?? null;
  return {
    address,
    port: audio.port,
    codec,
    payloadType: chosen,
    telephoneEvent,
    telephoneEventRate: nativeEvent !== undefined ? CLOCK_RATE[codec] : 8000,
    direction: audio.direction ?? sessionDirection,
  };
}

/**
 * An audio m-line's port: a number from 0 to 65535 (0: the stream is disabled). Anything else (a
 * port above 65535, a negative or non-numeric one, RFC 4566's port/count) is not a stream this
 * service can answer: the offer is refused (488) rather than a call set up toward a port that
 * cannot exist.
 */
function audioPort(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port <= 65535)) throw new SdpError(`the offer's audio port ${text.slice(0, 16)} is not a port number from 0 to 65535`, 488);
  return port;
}

/** The answer: one audio m-line with the chosen codec (and telephone-event when offered), from `address:port`. */
export function buildAudioAnswer(
  offer: AudioOffer,
  local: { address: string; port: number; sessionId: number; /** o= version (RFC 4566): +1 with each new answer */ version?: number },
): string {
  const ip = local.address.includes(':') ? 'IP6' : 'IP4';
  const formats = [offer.payloadType, ...(offer.telephoneEvent !== null ? [offer.telephoneEvent] : [])];
  const direction = { sendrecv: 'sendrecv', sendonly: 'recvonly', recvonly: 'sendonly', inactive: 'inactive' }[offer.direction];
  return [
    'v=0',
    `o=svc ${local.sessionId} ${local.version ?? local.sessionId} IN ${ip} ${local.address}`,
    's=svc realtime',
    `c=IN ${ip} ${local.address}`,
    't=0 0',
    `m=audio ${local.port} RTP/AVP ${formats.join(' ')}`,
    `a=rtpmap:${offer.payloadType} ${RTPMAP[offer.codec]}`,
    // we send mono (RFC 7587's stereo=0 is the default; said for the phones that assume otherwise)
    ...(offer.codec === 'opus' ? [`a=fmtp:${offer.payloadType} stereo=0;sprop-stereo=0;useinbandfec=1`] : []),
    ...(offer.telephoneEvent !== null
      ? [`a=rtpmap:${offer.telephoneEvent} telephone-event/${offer.telephoneEventRate}`, `a=fmtp:${offer.telephoneEvent} 0-16`]
      : []),
    'a=ptime:20',
    `a=${direction}`,
    '',
  ].join('\r\n');
}
