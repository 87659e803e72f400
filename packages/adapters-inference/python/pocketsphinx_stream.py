"""A warm, streaming pocketsphinx decoder behind a tiny stdin/stdout protocol.

Started once by the Node service (PocketsphinxDecoderPool) and kept alive: the model is loaded
once here, then one utterance after another is decoded incrementally while the user speaks.

Requests on stdin (one header line, ASCII, then any payload):
  S\n                  start an utterance (a previous one is dropped)
  A <n>\n<n bytes>     16 kHz mono s16le samples of the utterance in progress
  E\n                  end the utterance: final pass, answered with  F <text>\n
  X\n                  drop the utterance, answered with  F \n
Answers on stdout, one line each:
  R\n                  ready (model loaded), sent once at start
  P <text>\n           partial hypothesis, sent after audio when it changed
  F <text>\n           final hypothesis of the utterance
  !<message>\n         a request failed; the helper keeps running
"""
import sys

from pocketsphinx import Decoder


def set_option(config, name, value):
    """pocketsphinx's config is typed: yes/no are booleans, numbers are int or float."""
    if value in ('yes', 'no'):
        config.set_boolean(name, value == 'yes')
        return
    try:
        config.set_int(name, int(value))
        return
    except (ValueError, RuntimeError):
        pass
    try:
        config.set_float(name, float(value))
        return
    except (ValueError, RuntimeError):
        pass
    config.set_string(name, value)


def main():
    config = Decoder.default_config()
    args = sys.argv[1:]
    for i in range(0, len(args) - 1, 2):
        set_option(config, args[i], args[i + 1])
    config.set_string('-logfn', '/dev/null')
    decoder = Decoder(config)
    stdin = sys.stdin.buffer
    out = sys.stdout
    out.write('R\n')
    out.flush()
    in_utterance = False
    last_partial = ''
    while True:
        header = stdin.readline()
        if not header:
            return
        try:
            kind = header[:1]
            if kind == b'S':
                if in_utterance:
                    decoder.end_utt()
                decoder.start_utt()
                in_utterance = True
                last_partial = ''
            elif kind == b'A':
                size = int(header[2:])
                data = stdin.read(size)
                if not in_utterance:
                    continue
                decoder.process_raw(data, False, False)
                hyp = decoder.hyp()
                text = hyp.hypstr if hyp is not None else ''
                if text != last_partial:
                    last_partial = text
                    out.write('P ' + text + '\n')
                    out.flush()
            elif kind == b'E' or kind == b'X':
                text = ''
                if in_utterance:
                    decoder.end_utt()
                    in_utterance = False
                    if kind == b'E':
                        hyp = decoder.hyp()
                        text = hyp.hypstr if hyp is not None else ''
                out.write('F ' + text + '\n')
                out.flush()
            else:
                out.write('!unknown request ' + repr(header[:20]) + '\n')
                out.flush()
        except Exception as err:  # one bad request must not take the warm decoder down
            in_utterance = False
            out.write('!' + str(err).replace('\n', ' ') + '\n')
            out.flush()


if __name__ == '__main__':
    main()
