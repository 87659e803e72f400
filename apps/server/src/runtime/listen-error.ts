/**
 * A failed listen said in the words of the settings that chose the address: Node's own message
 * (`listen EADDRINUSE: address already in use 127.0.0.1:8080`) names neither SVC_PORT nor a way out.
 */
export function explainListenError(err: unknown, host: string, port: number): Error {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE') {
    return new Error(
      `port ${port} is already in use on ${host} (SVC_PORT=${port}, SVC_HOST=${host}): stop the process that holds ${address}, or set SVC_PORT to a free port (SVC_PORT=0 picks any)`,
      { cause: err },
    );
  }
  if (code === 'EACCES') {
    return new Error(`not allowed to listen on ${address} (SVC_PORT=${port}): ports below 1024 need root; set SVC_PORT to 1024 or above`, {
      cause: err,
    });
  }
  if (code === 'EADDRNOTAVAIL') {
    return new Error(
      `${host} is not an address of this machine (SVC_HOST=${host}): use 127.0.0.1, 0.0.0.0 or one of its interfaces' addresses`,
      { cause: err },
    );
  }
  return err instanceof Error ? err : new Error(String(err));
}
