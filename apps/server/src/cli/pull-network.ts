import { getGlobalDispatcher, ProxyAgent, setGlobalDispatcher } from 'undici';

type Env = Record<string, string | undefined>;

const proxyOf = (env: Env, scheme: 'https' | 'http') => env[`${scheme.toUpperCase()}_PROXY`] || env[`${scheme}_proxy`] || undefined;

/**
 * Node's built-in fetch (what the hub client uses) ignores HTTPS_PROXY on Node 20. The proxy the
 * variables name for the hub's scheme (unless NO_PROXY covers its host), set as undici's global
 * dispatcher, routes Node's fetch through it too (both read the dispatcher slot undici defines) until
 * the returned function restores the previous one (the CLI also runs inside other processes: tests).
 */
export function useProxyFromEnv(env: Env, hubUrl: string): () => Promise<void> {
  const { protocol, hostname } = new URL(hubUrl);
  const proxy = protocol === 'https:' ? (proxyOf(env, 'https') ?? proxyOf(env, 'http')) : proxyOf(env, 'http');
  if (!proxy || bypassesProxy(hostname, env.NO_PROXY ?? env.no_proxy ?? '')) return async () => undefined;
  const previous = getGlobalDispatcher();
  const agent = new ProxyAgent(proxy);
  setGlobalDispatcher(agent);
  return async () => {
    setGlobalDispatcher(previous);
    await agent.close();
  };
}

/** NO_PROXY as curl reads it: `*`, or hosts and domain suffixes (`.example.com` or `example.com`). */
function bypassesProxy(hostname: string, noProxy: string): boolean {
  return noProxy
    .split(',')
    .map((entry) =>
      entry
        .trim()
        .replace(/^\*?\./, '')
        .replace(/:\d+$/, '')
        .toLowerCase(),
    )
    .some((entry) => entry === '*' || (entry !== '' && (hostname === entry || hostname.endsWith(`.${entry}`))));
}

/** What to do when the hub could not be reached: a reachable mirror, a proxy, or a copied folder. */
export function offlineAdvice(hubUrl: string, source: string, env: Env): string[] {
  const proxy = proxyOf(env, 'https') ?? proxyOf(env, 'http');
  return [
    `The hub (${hubUrl}) could not be reached from this machine. Either:`,
    '  - point HF_ENDPOINT at a mirror of the hub you can reach: HF_ENDPOINT=https://mirror.example npm run models -- pull ' + source,
    proxy
      ? `  - check the proxy in use (${proxy}; NO_PROXY=${env.NO_PROXY ?? env.no_proxy ?? ''})`
      : `  - go through a proxy: HTTPS_PROXY=http://proxy.example:3128 npm run models -- pull ${source}`,
    '  - or download the model on a machine with internet (the same pull there, then copy its folder from the models',
    '    directory), copy it here and install it with: npm run models -- add PATH',
  ];
}
