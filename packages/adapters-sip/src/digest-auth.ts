import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The credentials a caller must prove (RFC 3261 section 22.4, HTTP digest of RFC 2617 with MD5, what every PBX and phone speaks). */
export interface DigestCredentials {
  username: string;
  password: string;
}

export const DIGEST_REALM = 'svc';
/** How long a challenge's nonce is accepted (a caller answers it within a second; a replay later is refused). */
const NONCE_TTL_MS = 5 * 60 * 1000;

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** What a SIP server stores instead of the password: MD5(username:realm:password), RFC 2617's HA1. */
export const digestHa1 = (username: string, password: string): string => md5(`${username}:${DIGEST_REALM}:${password}`);

/** The HA1 of a digest user name, or null when nobody has that name. */
export type Ha1Lookup = (username: string) => Promise<string | null>;

/** One fixed user (the server's SVC_SIP_USERNAME/SVC_SIP_PASSWORD) as a lookup. */
export function singleUser(credentials: DigestCredentials): Ha1Lookup {
  const ha1 = digestHa1(credentials.username, credentials.password);
  return async (username) => (username === credentials.username ? ha1 : null);
}

/**
 * Digest authentication without server state: the nonce is a timestamp signed with a per-process
 * secret, so a caller can only answer a challenge this process made recently, and a flood of
 * INVITEs leaves nothing behind.
 */
export class DigestAuth {
  private readonly secret = randomBytes(32);

  constructor(
    private readonly ha1Of: Ha1Lookup,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** The WWW-Authenticate value of a 401. */
  challenge(): string {
    const stamp = this.now().toString(36);
    const nonce = `${stamp}.${this.sign(stamp)}`;
    return `Digest realm="${DIGEST_REALM}", nonce="${nonce}", algorithm=MD5, qop="auth"`;
  }

  /**
   * The user name an Authorization header proves for this method (the request-URI it names is the
   * one hashed), or null. The nonce is checked before the user is looked up, so a flood of made-up
   * answers costs no lookups.
   */
  async verify(authorization: string | undefined, method: string): Promise<string | null> {
    if (!authorization || !/^Digest\s/i.test(authorization)) return null;
    const p = digestParams(authorization.slice(7));
    const { username, realm, nonce, uri, response } = p;
    if (!username || !realm || !nonce || !uri || !response) return null;
    if (realm !== DIGEST_REALM || !this.freshNonce(nonce)) return null;
    const ha1 = await this.ha1Of(username);
    if (!ha1) return null;
    const ha2 = md5(`${method}:${uri}`);
    const expected = p.qop ? md5(`${ha1}:${nonce}:${p.nc ?? ''}:${p.cnonce ?? ''}:${p.qop}:${ha2}`) : md5(`${ha1}:${nonce}:${ha2}`);
    const proved = response.length === expected.length && timingSafeEqual(Buffer.from(response.toLowerCase()), Buffer.from(expected));
    return proved ? username : null;
  }

  private freshNonce(nonce: string): boolean {
    const [stamp, signature] = nonce.split('.');
    if (!stamp || !signature || signature.length !== 64) return false;
    if (!timingSafeEqual(Buffer.from(signature), Buffer.from(this.sign(stamp)))) return false;
    const age = this.now() - parseInt(stamp, 36);
    return age >= 0 && age <= NONCE_TTL_MS;
  }

  private sign(stamp: string): string {
    return createHmac('sha256', this.secret).update(stamp).digest('hex');
  }
}

/** `name="value", name=value` pairs of a digest header. */
function digestParams(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/([a-zA-Z]+)\s*=\s*(?:"([^"]*)"|([^,\s]+))/g)) out[m[1]!.toLowerCase()] = m[2] ?? m[3] ?? '';
  return out;
}
