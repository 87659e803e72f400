import { aLawDecode, aLawEncode, muLawDecode, muLawEncode, type OpusCodec } from '@svc/core';

/** The audio codecs a call may use: G.711 (8 kHz) and Opus (RFC 7587: 48 kHz RTP clock). */
export type SipAudioCodecName = 'PCMU' | 'PCMA' | 'opus';

/** 20 ms per RTP packet, both ways (what every phone and PBX expects, and Opus's usual frame). */
export const PACKET_MS = 20;

/**
 * One call's codec state, both directions: the caller's payloads decoded to PCM at `sampleRate`
 * (the session's input rate) and 20 ms frames of the reply encoded. `decode` returns null for a
 * payload it cannot read (a corrupt Opus packet): that packet is dropped, the call goes on.
 */
export interface RtpAudioCodec {
  readonly name: SipAudioCodecName;
  /** PCM rate both ways, and the RTP clock rate. */
  readonly sampleRate: number;
  decode(payload: Uint8Array): Int16Array | null;
  encode(frame: Int16Array): Uint8Array | null;
  /** Frees native codec state (Opus). */
  release(): void;
}

const G711: Record<'PCMU' | 'PCMA', { decode(b: Uint8Array): Int16Array; encode(s: Int16Array): Uint8Array }> = {
  PCMU: { decode: muLawDecode, encode: muLawEncode },
  PCMA: { decode: aLawDecode, encode: aLawEncode },
};

/** The codec state of a call; Opus needs the codec port (the server offers Opus only when it has one). */
export function openRtpAudioCodec(name: SipAudioCodecName, opus: OpusCodec | null): RtpAudioCodec {
  if (name !== 'opus') return { name, sampleRate: 8000, ...G711[name], release: () => undefined };
  if (!opus) throw new Error('Opus was negotiated without an Opus codec');
  return new OpusRtpCodec(opus);
}

/** Opus over RTP (RFC 7587): one packet per 20 ms, mono both ways (a stereo caller is downmixed by libopus). */
class OpusRtpCodec implements RtpAudioCodec {
  readonly name = 'opus';
  readonly sampleRate = 48000;
  private readonly decoder;
  private readonly encoder;

  constructor(opus: OpusCodec) {
    this.decoder = opus.createDecoder(PACKET_MS);
    this.encoder = opus.createEncoder(PACKET_MS);
  }

  decode(payload: Uint8Array): Int16Array | null {
    try {
      return this.decoder.decode(payload);
    } catch {
      return null;
    }
  }

  encode(frame: Int16Array): Uint8Array | null {
    return this.encoder.encode(frame)[0] ?? null;
  }

  release(): void {
    this.decoder.release();
    this.encoder.flush();
  }
}
