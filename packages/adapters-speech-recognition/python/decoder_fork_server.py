"""Pocketsphinx decoders forked from one loaded model, so a new one is ready at once.

Loading the model takes a decoder process about half a second of a core; six callers who start
together on two cores waited for theirs while they spoke (docs/deployment.md, "Child processes"). This
process loads the model once, at start, and then forks a decoder per request: the child has the
model already, and shares its pages with this process and its siblings until it writes them.

Run as `python3 -u decoder_fork_server.py -hmm ... -lm ...` (the decoder settings). It speaks the
process launcher's protocol (packages/adapters-runtime/python/process_launcher.py), one JSON object
per line each way, so the service drives it with the same class:
  stdin:  {"op": "spawn", "id": N, "file": "...", "args": ["--socket", PATH]}  (file is ignored)
          {"op": "kill", "id": N, "signal": "SIGKILL"}
  stdout: {"op": "spawned", "id": N, "pid": P}
          {"op": "exit", "id": N, "code": C|null, "signal": "SIGKILL"|null, "stderr": "...", "error": {...}?}
A child connects to PATH and answers the requests of pocketsphinx_stream.py there; its stdin and
stdout are /dev/null, its name (comm) is svc-decoder, and the last 16 KiB of its stderr come back with its exit. A model that did
not load is reported as the error of every spawn. When stdin closes, every child is killed and this
process exits. One thread: the children are forked from a process that runs nothing else.
"""

import json
import os
import selectors
import signal
import sys
import traceback

from pocketsphinx_stream import connect, load_decoder, name_process, serve

STDERR_TAIL_BYTES = 16 * 1024


def send(message):
    try:
        sys.stdout.write(json.dumps(message) + '\n')
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        pass  # the service is gone: its end of stdin comes next


class Child:
    def __init__(self, pid, stderr):
        self.pid = pid
        self.stderr = stderr
        self.tail = b''


def run_child(config, decoder, socket_path, stderr_fd):
    """In the forked child: serve one connection with the loaded decoder, then exit."""
    code = 1
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.dup2(stderr_fd, 2)
        stdin, out = connect(socket_path)
        serve(config, decoder, stdin, out)
        code = 0
    except BaseException:  # the exit status and stderr tail say why
        traceback.print_exc()
    finally:
        sys.stderr.flush()
        os._exit(code)


def main():
    name_process('svc-decoders')
    try:
        config, decoder = load_decoder(sys.argv[1:])
        failure = None
    except Exception as err:  # reported with every spawn, so the service says why
        config = decoder = None
        failure = 'pocketsphinx could not load its model: %s' % err
    selector = selectors.DefaultSelector()
    children = {}
    selector.register(0, selectors.EVENT_READ, None)
    pending = b''
    while True:
        for key, _ in selector.select():
            child_id = key.data
            if child_id is None:
                chunk = os.read(0, 65536)
                if not chunk:
                    # The service is gone: its decoders go with it.
                    for child in children.values():
                        try:
                            os.kill(child.pid, signal.SIGKILL)
                        except ProcessLookupError:
                            pass
                    os._exit(0)
                pending += chunk
                while b'\n' in pending:
                    line, pending = pending.split(b'\n', 1)
                    try:
                        message = json.loads(line)
                    except ValueError:
                        continue
                    if message.get('op') == 'spawn':
                        spawn(message, config, decoder, failure, selector, children)
                    elif message.get('op') == 'kill':
                        child = children.get(message['id'])
                        if child is not None:
                            try:
                                os.kill(child.pid, signal.Signals[message.get('signal', 'SIGKILL')])
                            except (ProcessLookupError, KeyError):
                                pass
            else:
                collect(child_id, children, selector)


def spawn(message, config, decoder, failure, selector, children):
    child_id = message['id']
    args = message.get('args') or []
    if failure is not None or len(args) < 2 or args[0] != '--socket':
        return refuse(child_id, failure or 'a decoder is forked only with --socket PATH')
    try:
        read_end, write_end = os.pipe()
    except OSError as err:
        return refuse(child_id, 'no pipe for a decoder: %s' % err)
    try:
        pid = os.fork()
    except OSError as err:  # out of processes or memory: this decoder fails, the others go on
        os.close(read_end)
        os.close(write_end)
        return refuse(child_id, 'could not fork a decoder: %s' % err)
    if pid == 0:
        os.close(read_end)
        selector.close()
        for child in children.values():
            os.close(child.stderr)
        run_child(config, decoder, args[1], write_end)
    os.close(write_end)
    children[child_id] = Child(pid, read_end)
    selector.register(read_end, selectors.EVENT_READ, child_id)
    send({'op': 'spawned', 'id': child_id, 'pid': pid})


def refuse(child_id, reason):
    """A decoder that could not be started: the service sees why as its spawn error."""
    send({'op': 'exit', 'id': child_id, 'code': None, 'signal': None, 'stderr': '',
          'error': {'message': reason}})


def collect(child_id, children, selector):
    """Keeps the tail of a child's stderr; at its end (the child exited), reports the exit."""
    child = children[child_id]
    chunk = os.read(child.stderr, 65536)
    if chunk:
        child.tail = (child.tail + chunk)[-2 * STDERR_TAIL_BYTES:]
        return
    selector.unregister(child.stderr)
    os.close(child.stderr)
    del children[child_id]
    _, status = os.waitpid(child.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    exit_code, exit_signal = (None, signal.Signals(-code).name) if code < 0 else (code, None)
    send({'op': 'exit', 'id': child_id, 'code': exit_code, 'signal': exit_signal,
          'stderr': child.tail[-STDERR_TAIL_BYTES:].decode('utf-8', 'replace')})


if __name__ == '__main__':
    main()
