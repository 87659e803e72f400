"""A warm, streaming pocketsphinx decoder behind a tiny stdin/stdout protocol.

Started once by the Node service (PocketsphinxDecoderPool) and kept alive: the model is loaded
once here, then one utterance after another is decoded incrementally while the user speaks.

Requests on stdin (one header line, ASCII, then any payload):
  S [<state>]\n        start an utterance (a previous one is dropped) with this cepstral mean, or
                       the model's initial one: each caller's turns start from their own
                       speaker normalization, never from the previous caller's
  N [<state>]\n        like S, on a new stream: frame numbers (word times) start at 0
  A <n>\n<n bytes>     16 kHz mono s16le samples of the utterance in progress, answered with
                       P (below) once decoded, so the caller knows how far behind real time it is
  E\n                  end the utterance: final pass, answered with  F <text>\n
  W\n                  like E, and the word times first:  T <word> <start> <end> ...\n  then  F <text>\n
                       (seconds; silences, fillers and sentence marks left out)
  X\n                  drop the utterance, answered with  F \n
Answers on stdout, one line each:
  R\n                  ready (model loaded), sent once at start
  P [<text>]\n         after each A: the partial hypothesis so far, or a bare P when it has not
                       changed since the last one (the acknowledgement of that audio)
  F <text>\n           final hypothesis of the utterance (after E it is preceded by
                       C <state>\n, the cepstral mean state the utterance left, 27 numbers, for
                       the next S of the same caller)
  !<message>\n         a request failed; the helper keeps running
"""
import ctypes
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


class CepstralMean:
    """The decoder's live cepstral mean normalization (CMN), read and set through sphinxbase.

    Streaming decoding normalizes each frame by a running mean of the cepstra, which pocketsphinx
    keeps across utterances: a pooled decoder would carry one caller's channel and voice into the
    next caller's turn. The Python bindings do not expose it, so it is reached with ctypes through
    ps_get_feat() and the structures of Debian's sphinxbase 5prealpha (feat_t.cmn_struct at offset
    88; cmn_t = {mean*, var*, sum*, int32 nframe, int32 veclen}), checked at start (cepstrum size
    13 in both), else this stays off and the helper says so.

    The state is the running mean, the running sum and its frame count. A new caller starts from a
    fresh decoder's state (the model's mean, nothing accumulated), and the mean is refreshed after
    every chunk (cmn_live_update) so it adapts to the caller within their first turn instead of
    only after it. On the five LibriVox sentences as one conversation: 21 % WER, against 27 % for
    the carried-over mean of before and 32-39 % for a reset before every turn.
    """

    FEAT_CEPSIZE = 16
    FEAT_CMN_STRUCT = 88
    CMN_MEAN, CMN_SUM, CMN_NFRAME, CMN_VECLEN = 0, 16, 24, 28
    SIZE = 13

    def __init__(self, decoder):
        self.cmn = None
        try:
            ps = ctypes.CDLL('libpocketsphinx.so.3')
            self.base = ctypes.CDLL('libsphinxbase.so.3')
            ps.ps_get_feat.restype = ctypes.c_void_p
            ps.ps_get_feat.argtypes = [ctypes.c_void_p]
            feat = ps.ps_get_feat(int(decoder.this))
            cepsize = ctypes.c_int32.from_address(feat + self.FEAT_CEPSIZE).value
            cmn = ctypes.c_void_p.from_address(feat + self.FEAT_CMN_STRUCT).value
            if cepsize != self.SIZE or not cmn or ctypes.c_int32.from_address(cmn + self.CMN_VECLEN).value != self.SIZE:
                return
            self.cmn = cmn
            self.handle = ctypes.c_void_p(cmn)
            self.fresh = self.get()
        except (OSError, AttributeError, ValueError):
            self.cmn = None

    def _vector(self, offset):
        return ctypes.cast(ctypes.c_void_p.from_address(self.cmn + offset).value, ctypes.POINTER(ctypes.c_float))

    def get(self):
        """The state as numbers: frame count, then the mean, then the sum."""
        mean, total = self._vector(self.CMN_MEAN), self._vector(self.CMN_SUM)
        nframe = ctypes.c_int32.from_address(self.cmn + self.CMN_NFRAME).value
        return [float(nframe)] + [mean[i] for i in range(self.SIZE)] + [total[i] for i in range(self.SIZE)]

    def set(self, state):
        if len(state) != 1 + 2 * self.SIZE:
            raise ValueError('a cepstral mean state has %d numbers' % (1 + 2 * self.SIZE))
        mean, total = self._vector(self.CMN_MEAN), self._vector(self.CMN_SUM)
        ctypes.c_int32.from_address(self.cmn + self.CMN_NFRAME).value = int(state[0])
        for i in range(self.SIZE):
            mean[i] = state[1 + i]
            total[i] = state[1 + self.SIZE + i]

    def update(self):
        self.base.cmn_live_update(self.handle)


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
    cmn = CepstralMean(decoder)
    stdin = sys.stdin.buffer
    out = sys.stdout
    out.write('R\n' if cmn.cmn else 'R nocmn\n')
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
                if cmn.cmn:
                    given = header[1:].strip()
                    cmn.set([float(v) for v in given.split(b',')] if given else cmn.fresh)
                decoder.start_utt()
                in_utterance = True
                last_partial = ''
            elif kind == b'A':
                size = int(header[2:])
                data = stdin.read(size)
                answer = 'P\n'
                if in_utterance:
                    decoder.process_raw(data, False, False)
                    if cmn.cmn:
                        cmn.update()
                    hyp = decoder.hyp()
                    text = hyp.hypstr if hyp is not None else ''
                    if text != last_partial:
                        last_partial = text
                        answer = 'P ' + text + '\n'
                # Every piece is answered: the caller counts what is still waiting to be decoded.
                out.write(answer)
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
                    if cmn.cmn:
                        out.write('C ' + ','.join('%.6g' % v for v in cmn.get()) + '\n')
                if kind == b'W':
                    out.write('T ' + times + '\n')
                out.write('F ' + text + '\n')
                out.flush()
            else:
                out.write('!unknown request ' + repr(header[:20]) + '\n')
                out.flush()
        except Exception as err:  # one bad request must not take the warm decoder down
            in_utterance = False
            if header[:1] == b'A':
                out.write('P\n')  # still the answer to that audio; the failure follows
            out.write('!' + str(err).replace('\n', ' ') + '\n')
            out.flush()


if __name__ == '__main__':
    main()
