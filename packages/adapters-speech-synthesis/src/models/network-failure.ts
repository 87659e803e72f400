/**
 * Why a request to the hub never got an answer, from Node fetch's `TypeError: fetch failed` and the
 * system or TLS error in its `cause` chain: the host that could not be reached and the reason in an
 * operator's words (DNS, refused, unreachable, timeout, TLS, proxy). Null when there is no such cause.
 */
export function describeNetworkFailure(error: unknown): { host: string | null; reason: string } | null {
  const cause = innermostCause(error);
  if (!cause) return null;
  const code = String(cause.code ?? '');
  const host = cause.hostname ?? (cause.address ? `${cause.address}${cause.port ? `:${cause.port}` : ''}` : null);
  const reason =
    REASONS[code] ??
    (TLS_CODES.test(code)
      ? `the TLS certificate was not accepted (${code}: ${cause.message}); a proxy that re-signs TLS needs its CA in NODE_EXTRA_CA_CERTS=/path/ca.pem`
      : null);
  if (reason) return { host, reason };
  return code ? { host, reason: `${code}: ${cause.message}` } : null;
}

interface SystemError {
  code?: string;
  hostname?: string;
  address?: string;
  port?: number;
  message: string;
  cause?: unknown;
  errors?: unknown[];
}

const REASONS: Record<string, string> = {
  ENOTFOUND: 'DNS lookup failed (ENOTFOUND: no such host, or no DNS server answers: offline?)',
  EAI_AGAIN: 'DNS lookup failed (EAI_AGAIN: no DNS server answered: offline?)',
  ECONNREFUSED: 'connection refused (ECONNREFUSED: nothing listens there, or a firewall rejects it)',
  ECONNRESET: 'the connection was reset (ECONNRESET: a firewall or proxy cut it)',
  ENETUNREACH: 'network unreachable (ENETUNREACH: no route; offline?)',
  EHOSTUNREACH: 'host unreachable (EHOSTUNREACH: no route; offline?)',
  ETIMEDOUT: 'the connection timed out (ETIMEDOUT: a firewall dropping packets, or offline)',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out (a firewall dropping packets, or offline)',
  UND_ERR_SOCKET: 'the connection broke (a firewall or proxy cut it)',
  UND_ERR_ABORTED: 'the request was aborted',
};

const TLS_CODES = /CERT|SSL|TLS|SELF_SIGNED|ISSUER/;

/** The deepest error with a system `code` (fetch failed -> connect error -> AggregateError's first). */
function innermostCause(error: unknown): SystemError | null {
  let found: SystemError | null = null;
  let current = error as SystemError | undefined;
  for (let depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
    if (current.code && current.code !== 'ERR_INVALID_URL') found = current;
    current = (current.cause ?? current.errors?.[0]) as SystemError | undefined;
  }
  return found;
}
