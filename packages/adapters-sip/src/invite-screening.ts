import type { Logger, RateLimiter } from '@svc/core';
import { DigestAuth, type Ha1Lookup } from './digest-auth.js';
import { parseAudioOffer, SdpError, type AudioOffer } from './sdp.js';
import type { SipRequest } from './sip-message.js';

/** Why a new INVITE is refused before anything is set up: the final status, its phrase, the reason (a Warning), extra headers. */
export interface InviteRefusal {
  status: number;
  phrase: string;
  reason: string;
  headers: Array<[string, string]>;
}

/**
 * The checks a new INVITE passes before any state, admission or media port exists: the source's
 * rate (a token bucket keyed `sip:<address>`), the digest credentials when configured (a stateless
 * 401 challenge), no extension required that it lacks (420), and an SDP offer with a codec the
 * service speaks (488 otherwise).
 */
export class InviteScreening {
  private readonly digest: DigestAuth | null;

  constructor(
    private readonly rateLimiter: RateLimiter,
    /** The digest users; a caller must prove one whenever `digestRequired()` says so. */
    ha1Of: Ha1Lookup | undefined,
    private readonly digestRequired: () => Promise<boolean>,
    private readonly logger: Logger,
    /** Whether Opus can be offered back (an Opus codec is wired): else only G.711 is accepted. */
    private readonly opus = false,
  ) {
    this.digest = ha1Of ? new DigestAuth(ha1Of) : null;
  }

  /** The caller's offer and the digest user it proved (null: none asked), or the refusal it gets. */
  async screen(invite: SipRequest, source: string): Promise<{ offer: AudioOffer; username: string | null } | { refusal: InviteRefusal }> {
    const rate = await this.rateLimiter.take(`sip:${source}`);
    if (!rate.allowed) {
      this.logger.info({ from: source }, 'SIP INVITE refused: too many from this address');
      return refusal(503, 'Service Unavailable', 'too many calls from this address', [
        ['Retry-After', String(Math.max(1, Math.ceil(rate.retryAfterSeconds)))],
      ]);
    }
    let username: string | null = null;
    if (this.digest && (await this.digestRequired())) {
      const authorization = invite.headers.get('authorization');
      username = await this.digest.verify(authorization, 'INVITE');
      if (username === null) {
        // Every call's first INVITE is challenged (not worth a line); an answer that fails is: a PBX
        // with a wrong password retries with nothing else to tell its operator why.
        if (authorization)
          this.logger.info(
            { from: source, user: claimedUser(authorization) },
            'SIP INVITE refused: its digest answer proves no user (wrong password, unknown user or an old challenge)',
          );
        return refusal(401, 'Unauthorized', 'digest credentials required', [['WWW-Authenticate', this.digest.challenge()]]);
      }
    }
    // RFC 3261 8.2.2.3: an extension the caller requires and this server lacks (100rel, timer, ...)
    // is refused with 420, naming it, so the caller can retry without it; answering as if it had
    // been agreed leaves the caller waiting for what never comes (PRACKed provisionals, refreshes).
    const required = invite.headers
      .all('require')
      .flatMap((value) => value.split(','))
      .map((option) => option.trim().slice(0, 64))
      .filter((option) => option !== '');
    if (required.length > 0) {
      const unsupported = [...new Set(required)].slice(0, 8).join(', ');
      this.logger.info({ from: source, require: unsupported }, 'SIP INVITE refused: it requires an extension this server lacks');
      return refusal(420, 'Bad Extension', `extensions not supported: ${unsupported}`, [['Unsupported', unsupported]]);
    }
    try {
      if (!/application\/sdp/i.test(invite.headers.get('content-type') ?? '') || invite.body === '')
        throw new SdpError('the INVITE has no SDP offer (offerless INVITEs are not supported)', 488);
      return { offer: parseAudioOffer(invite.body, { opus: this.opus }), username };
    } catch (err) {
      if (!(err instanceof SdpError)) throw err;
      // the caller sees the reason in a Warning; a PBX's operator reads the log (a codec list that does not match)
      this.logger.info({ from: source, status: err.status, reason: err.message }, 'SIP INVITE refused: its SDP offer');
      return refusal(err.status, err.status === 488 ? 'Not Acceptable Here' : 'Bad Request', err.message);
    }
  }
}

/** The user name an Authorization header claims (bounded: it is the caller's text), for the log. */
function claimedUser(authorization: string): string | null {
  return /\busername\s*=\s*"([^"]{0,64})"/i.exec(authorization)?.[1] ?? null;
}

function refusal(status: number, phrase: string, reason: string, headers: Array<[string, string]> = []): { refusal: InviteRefusal } {
  return { refusal: { status, phrase, reason, headers } };
}
