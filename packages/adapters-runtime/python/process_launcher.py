"""The service's process launcher: starts its child processes (ffmpeg, the pocketsphinx decoders) so
the service itself never forks (see packages/adapters-runtime/src/process-launcher.ts).

A small process (~10 MB, python3 is already what the decoders run on), started once by the service
and kept. One JSON object per line each way:
  stdin:  {"op": "spawn", "id": N, "file": "...", "args": [...]}  |  {"op": "kill", "id": N, "signal": 9}
  stdout: {"op": "spawned", "id": N, "pid": P}
          {"op": "exit", "id": N, "code": C|null, "signal": "SIGKILL"|null, "stderr": "...", "error": {...}?}
A child's stdin and stdout are /dev/null (its data goes over Unix sockets it connects to itself);
the last 16 KiB of its stderr come back with its exit. When the service goes away (stdin closes),
every child is killed and this process exits.
"""

import json
import os
import signal
import subprocess
import sys
import threading

STDERR_TAIL_BYTES = 16 * 1024

children = {}
children_lock = threading.Lock()
out_lock = threading.Lock()


def send(message):
    line = json.dumps(message) + '\n'
    with out_lock:
        try:
            sys.stdout.write(line)
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):
            pass


def watch(child_id, child):
    """Keeps the tail of the child's stderr, then reports its exit."""
    tail = b''
    while True:
        chunk = child.stderr.read1(65536) if hasattr(child.stderr, 'read1') else child.stderr.read(65536)
        if not chunk:
            break
        tail = (tail + chunk)[-2 * STDERR_TAIL_BYTES:]
    code = child.wait()
    with children_lock:
        children.pop(child_id, None)
    exit_code, exit_signal = (None, signal.Signals(-code).name) if code < 0 else (code, None)
    send({'op': 'exit', 'id': child_id, 'code': exit_code, 'signal': exit_signal,
          'stderr': tail[-STDERR_TAIL_BYTES:].decode('utf-8', 'replace')})


def spawn(message):
    child_id = message['id']
    try:
        child = subprocess.Popen([message['file'], *message['args']], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, close_fds=True)
    except OSError as err:
        code = {2: 'ENOENT', 13: 'EACCES'}.get(err.errno, 'E' + str(err.errno))
        send({'op': 'exit', 'id': child_id, 'code': None, 'signal': None, 'stderr': '',
              'error': {'message': 'spawn ' + message['file'] + ' ' + code, 'code': code}})
        return
    with children_lock:
        children[child_id] = child
    send({'op': 'spawned', 'id': child_id, 'pid': child.pid})
    threading.Thread(target=watch, args=(child_id, child), daemon=True).start()


def main():
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get('op') == 'spawn':
            spawn(message)
        elif message.get('op') == 'kill':
            with children_lock:
                child = children.get(message['id'])
            if child is not None:
                try:
                    child.send_signal(signal.Signals[message.get('signal', 'SIGKILL')])
                except (ProcessLookupError, KeyError):
                    pass
    # The service is gone: its children go with it.
    with children_lock:
        for child in children.values():
            try:
                child.kill()
            except ProcessLookupError:
                pass
    os._exit(0)


if __name__ == '__main__':
    main()
