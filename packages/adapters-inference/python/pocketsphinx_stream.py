"""A warm, streaming pocketsphinx decoder behind a tiny stdin/stdout protocol.

Started once by the Node service (PocketsphinxDecoderPool) and kept alive: the model is loaded
once here, then one utterance after another is decoded incrementally while the user speaks.

Requests on stdin (one header line, ASCII, then any payload):
  S\n                  start an utterance (a previous one is dropped)
  N\n                  start an utterance on a new stream: frame numbers (word times) start at 0
  A <n>\n<n bytes>     16 kHz mono s16le samples of the utterance in progress
  E\n                  end the utterance: final pass, answered with  F <text>\n
  W\n                  like E, and the word times first:  T <word> <start> <end> ...\n  then  F <text>\n
                       (seconds; silences, fillers and sentence marks left out)
  X\n                  drop the utterance, answered with  F \n
Answers on stdout, one line each:
  R\n                  ready (model loaded), sent once at start
  P <text>\n           partial hypothesis, sent after audio when it changed
  F <text>\n           final hypothesis of the utterance
  !<message>\n         a request failed; the helper keeps running
"""
import re
import sys

from pocketsphinx import Decoder

ALTERNATE = re.compile(r'\(\d+\)$')


def word_times(decoder, frame_rate):
    """The words of the last utterance with start and end in seconds, as 'word start end' triples."""
    parts = []
    # Frame numbers count from the start of the stream: exact for an utterance begun with N.
    for seg in decoder.seg():
        word = seg.word
        # <s>, </s>, <sil> and [NOISE]-style fillers are not words; read(2) is a pronunciation variant.
        if word.startswith('<') or word.startswith('['):
            continue
        word = ALTERNATE.sub('', word)
        parts.append('%s %.2f %.2f' % (word, seg.start_frame / frame_rate, (seg.end_frame + 1) / frame_rate))
    return ' '.join(parts)


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
    frame_rate = float(config.get_int('-frate'))
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
            if kind == b'S' or kind == b'N':
                if in_utterance:
                    decoder.end_utt()
                if kind == b'N':
                    decoder.start_stream()
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
            elif kind == b'E' or kind == b'X' or kind == b'W':
                text = ''
                times = ''
                if in_utterance:
                    decoder.end_utt()
                    in_utterance = False
                    if kind != b'X':
                        hyp = decoder.hyp()
                        text = hyp.hypstr if hyp is not None else ''
                    if kind == b'W':
                        times = word_times(decoder, frame_rate)
                if kind == b'W':
                    out.write('T ' + times + '\n')
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
