/**
 * Calls to this server's API. The key lives in sessionStorage only (gone when the tab closes) and
 * is sent only in the Authorization header of same-origin requests.
 */
const STORAGE_KEY = 'svc.playground.apiKey';

export const apiKey = {
  get(): string | null {
    return sessionStorage.getItem(STORAGE_KEY);
  },
  set(key: string): void {
    sessionStorage.setItem(STORAGE_KEY, key);
  },
  clear(): void {
    sessionStorage.removeItem(STORAGE_KEY);
  },
};

/** The REST error shape `{error: {message, type, code, param}}`, thrown for any non-2xx answer. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string | null,
    readonly param: string | null,
  ) {
    super(message);
  }
  describe(): string {
    return `${this.status}${this.type ? ` ${this.type}` : ''}: ${this.message}`;
  }
}

export function describeError(err: unknown): string {
  if (err instanceof ApiError) return err.describe();
  if (err instanceof Error) return err.message;
  return String(err);
}

/** fetch() of an API path with the key; rejects with ApiError unless the status is 2xx. */
export async function api(path: string, init: RequestInit = {}): Promise<Response> {
  const key = apiKey.get();
  if (!key) throw new ApiError(401, 'Sign in with an API key first.', 'invalid_api_key', null);
  const headers = new Headers(init.headers);
  headers.set('Authorization', `Bearer ${key}`);
  const res = await fetch(path, { ...init, headers });
  if (!res.ok) throw await apiErrorOf(res);
  return res;
}

export async function apiJson<T>(path: string, init: RequestInit = {}): Promise<T> {
  return (await (await api(path, init)).json()) as T;
}

export function jsonRequest(method: string, body: unknown, signal?: AbortSignal): RequestInit {
  return { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), ...(signal ? { signal } : {}) };
}

/** A non-2xx answer as an ApiError (the REST error shape when the body has it). */
export async function apiErrorOf(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: string; type?: string; param?: string | null } };
    if (body.error?.message) return new ApiError(res.status, body.error.message, body.error.type ?? null, body.error.param ?? null);
  } catch {
    // not the REST error shape; fall through
  }
  return new ApiError(res.status, text.slice(0, 200) || res.statusText, null, null);
}

/** The server's own address, as code samples should show it. */
export const BASE_URL = location.origin;
export const WS_URL = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}`;
