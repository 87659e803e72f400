import { startTestServer, type TestServer, type TestServerOptions } from './test-server.js';

export interface RealtimeTestServer extends TestServer {
  /** Open sessions of the server's realtime gateway (to check that none leak). */
  activeSessions: () => number;
}

/** The real server (REST + the realtime gateway on one port) for the realtime end-to-end tests. */
export async function startRealtimeServer(options: TestServerOptions = {}): Promise<RealtimeTestServer> {
  const server = await startTestServer(options);
  return { ...server, activeSessions: () => server.server.realtime.gateway.activeSessions() };
}
