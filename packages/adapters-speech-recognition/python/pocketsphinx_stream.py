"""A warm, streaming pocketsphinx decoder behind a tiny stdin/stdout protocol.

Started once by the Node service (PocketsphinxDecoderPool) and kept alive: the model is loaded
once here, then one utterance after another is decoded incrementally while the user speaks.

Requests on stdin (one header line, ASCII, then any payload):
  S [<state>]\n        start an utterance (a previous one is dropped) with this cepstral mean, or
                       the model's initial one: each caller's turns start from their own
                       speaker normalization, never from the previous caller's
  N [<state>]\n        like S, on a new stream: frame numbers (word times) start at 0
  L [<state>]\n        like N, and report the words that have settled while decoding:
                       K <text>\n whenever more of them have (words that ended 1 s or more
                       before the latest frame decoded, in the input: a pause the decoder skipped
                       counts; the final pass rarely changes them)
  A <n>\n<n bytes>     16 kHz mono s16le samples of the utterance in progress, answered with
                       P (below) once decoded, so the caller knows how far behind real time it is
  E\n                  end the utterance: final pass, answered with  F <text>\n
  W\n                  like E, and the word times first:  T <word> <start> <end> ...\n, then the
                       confidence  Q <avg_logprob> <no_speech>\n, then  F <text>\n
                       (seconds into the input of an utterance begun with N or L, pauses the
                       decoder skipped counted; silences, fillers and sentence marks left out;
                       avg_logprob is the mean natural log of the words' lattice posteriors, '-'
                       when this build cannot compute them; no_speech is the share of the
                       utterance's 100 ms pieces that pocketsphinx's voice activity detector did
                       not class as speech)
  X\n                  drop the utterance, answered with  F \n
Answers on stdout, one line each:
  R\n                  ready (model loaded), sent once at start
  U <ms>\n              before each P of an utterance: the milliseconds of speech the decoder
                       heard after the partial hypothesis's last word (in the whole utterance
                       before the first word) and made no word of: its [SPEECH] fillers
                       (spoken noise: a mumbled or creaky word) and, on a new stream (N, L), the
                       voice it decoded as silence after the last word (a soft last word: see
                       unrecognized_speech_ms); silence, [NOISE] (breath, clicks) and the room's
                       noise do not count. Sent with every P, changed or bare, since it grows
                       while the words stay the same. A caller that does not know U ignores it
  P [<text>]\n         after each A: the partial hypothesis so far, or a bare P when it has not
                       changed since the last one (the acknowledgement of that audio)
  F <text>\n           final hypothesis of the utterance (after E it is preceded by
                       C <state>\n, the cepstral mean state the utterance left, 27 numbers, for
                       the next S of the same caller)
  !<message>\n         a request failed; the helper keeps running
"""
import array
import ctypes
import math
import re
import socket
import sys

from pocketsphinx import Decoder

ALTERNATE = re.compile(r'\(\d+\)$')
# The filler the decoder puts where it hears speech it cannot make a word of (noisedict: +SPN+).
SPOKEN_NOISE = '[SPEECH]'
# What the decoder puts where it hears silence: between words, and after the sentence's last.
SILENCES = ('<sil>', '</s>')
# A word is settled once the decoder is this many frames (10 ms) past its end.
SETTLED_FRAMES = 100


def is_word(word):
    """<s>, </s>, <sil> and [NOISE]-style fillers are not words."""
    return not (word.startswith('<') or word.startswith('['))


def settled_text(decoder, timeline):
    """The words of the partial hypothesis that ended at least SETTLED_FRAMES before the latest frame decoded.

    Measured in the input, not in the decoder's frames: those skip the silences its voice activity
    detector dropped (see Timeline), so a word just before a long pause settles as soon as the
    decoder hears speech again rather than a second into it. (Segment frames as the bindings give
    them run ahead of n_frames() by all the input before the latest pause: compared as they are,
    words settled later and later after every pause, or not before the end.)
    """
    horizon = timeline.decoded_frame(timeline.input_frame(decoder.n_frames()) - SETTLED_FRAMES)
    words = []
    for word, _, end in timeline.segments():
        if end >= horizon:
            break
        if is_word(word):
            words.append(ALTERNATE.sub('', word))
    return ' '.join(words)


def unrecognized_speech_ms(timeline, frame_rate, levels=None):
    """Milliseconds of speech after the partial hypothesis's last word that it made no word of.

    Two kinds, both counted in all of it before a first word: its [SPEECH] fillers (spoken noise: a
    mumbled or creaky word); and, given the input's levels (InputLevels), the voice it decoded as
    silence after its last word: frames of its <sil> and </s> there that stand out of the room's
    noise (a soft last word that a browser's noise suppression turned down, "... to do for [them]",
    taken for the end of the sentence). Breath and noise ([NOISE]) do not count.

    [SPEECH] lengths are in the decoder's own frames: the speech it heard, without the silences its
    voice activity detector dropped (see Timeline); the voice is counted in the input's frames.
    """
    segments = list(timeline.segments())
    after = max((i for i, (word, _, _) in enumerate(segments) if is_word(word)), default=-1) + 1
    frames = 0
    for word, start, end in segments[after:]:
        if word == SPOKEN_NOISE:
            frames += end - start + 1
        elif word in SILENCES and levels is not None:
            frames += levels.voiced(timeline.input_frame(start), timeline.input_frame(end))
    return int(round(frames * 1000.0 / frame_rate))


class InputLevels:
    """The level of each 10 ms frame of the utterance's input, to tell the voice from the room's noise.

    A frame is voice when it is at least VOICE_OVER_QUIET_DB over the room's level: the quietest
    tenth of the frames of the last ROOM_FRAMES (the rule the service's turn detection uses to find
    where the voice went quiet).
    """

    VOICE_OVER_QUIET_DB = 12.0
    ROOM_FRAMES = 140
    # The voice has stopped once this many frames (100 ms) are quiet.
    QUIET_FRAMES = 10
    # The level (dB of the mean square, in samples) at or below which a frame is digital silence: samples of 0 and +-1.
    DIGITAL_SILENCE = 0.0

    def __init__(self, samples_per_frame):
        self.samples_per_frame = int(samples_per_frame)
        self.start()

    def start(self):
        # Doubles, not a list of float objects: 8 bytes per 10 ms, 1.4 MB for a 30-minute turn.
        self.levels = array.array('d')
        self.rest = b''

    def fed(self, data):
        """After process_raw() of these s16le bytes."""
        data = self.rest + data
        size = self.samples_per_frame * 2
        whole = len(data) // size * size
        samples = array.array('h')
        samples.frombytes(data[:whole])
        if sys.byteorder == 'big':
            samples.byteswap()
        for at in range(0, len(samples), self.samples_per_frame):
            energy = sum(x * x for x in samples[at:at + self.samples_per_frame]) / self.samples_per_frame
            self.levels.append(10.0 * math.log10(energy + 1e-9))
        self.rest = data[whole:]

    def voiced(self, first, last):
        """How many input frames from first to last (inclusive) stand out of the room's noise.

        0 while the voice goes on, standing out within the last QUIET_FRAMES: what follows the last
        word may still become a word.
        """
        # Digital silence (a client that sends zeros between its phrases) is no room: it would make
        # the room's own noise after a last word stand out as voice.
        recent = sorted(level for level in self.levels[-self.ROOM_FRAMES:] if level > self.DIGITAL_SILENCE)
        if len(recent) < 10:
            return 0
        over = recent[len(recent) // 10] + self.VOICE_OVER_QUIET_DB
        if any(level >= over for level in self.levels[-self.QUIET_FRAMES:]):
            return 0
        return sum(1 for level in self.levels[max(0, first):last + 1] if level >= over)


def word_times(frame_rate, timeline):
    """The words of the last utterance with start and end in seconds, as 'word start end' triples."""
    parts = []
    # On the input's timeline (see Timeline): seconds from the start of an utterance begun with N or L.
    for word, start, end in timeline.segments():
        # Fillers are left out; read(2) is a pronunciation variant.
        if not is_word(word):
            continue
        word = ALTERNATE.sub('', word)
        start, end = timeline.input_frame(start), timeline.input_frame(end) + 1
        parts.append('%s %.2f %.2f' % (word, start / frame_rate, end / frame_rate))
    return ' '.join(parts)


class Timeline:
    """Where the decoder's frames lie in the input of an utterance begun on a new stream (N, L).

    (After S the stream, and the offset below, began with an earlier utterance: its frames in the
    decoder's own count stay right, its place in the input does not.)

    pocketsphinx's voice activity detector (-remove_silence, on by default) keeps every silence
    longer than its hangover from the search, so the decoder's own frames (n_frames(), the search's
    segments) skip it: after a pause they lag the input by all the silence dropped so far. The
    segment frames the bindings give are on neither timeline: pocketsphinx adds to all of them, the
    words before the pause too, the input frame where its detector last heard speech begin (its
    stream offset), so they jump by about the whole input so far at every pause.

    So this keeps, for each stretch of input the detector passed on, where it begins in the input
    (that offset, read after each piece) and how far the input is ahead of the decoder there: input
    frames fed less n_frames(), its smallest over the stretch (the front end holds a few frames back,
    more in the piece that starts a stretch). The first stretch begins at the decoder's frame 0, and
    the frames held back are the same in every stretch, which places the later ones.
    """

    def __init__(self, decoder, samples_per_frame):
        self.decoder = decoder
        self.samples_per_frame = samples_per_frame
        self.read_offset = self._offset_reader(decoder)
        self.start()

    @staticmethod
    def _offset_reader(decoder):
        """pocketsphinx's stream offset, from its acmod_stream_offset() through ctypes.

        The bindings do not expose it. ps_decoder_t.acmod is at offset 16 in Debian's 5prealpha,
        checked: its feature computation (acmod_t.fcb, at offset 32) is the one ps_get_feat() gives.
        Failing that, the first segment's start: the n-gram search starts its first segment at its
        frame 0, so what the bindings give there is the offset alone.
        """
        try:
            ps = ctypes.CDLL('libpocketsphinx.so.3')
            ps.ps_get_feat.restype = ctypes.c_void_p
            ps.ps_get_feat.argtypes = [ctypes.c_void_p]
            ps.acmod_stream_offset.restype = ctypes.c_int32
            ps.acmod_stream_offset.argtypes = [ctypes.c_void_p]
            handle = int(decoder.this)
            acmod = ctypes.c_void_p.from_address(handle + 16).value
            if acmod and ctypes.c_void_p.from_address(acmod + 32).value == ps.ps_get_feat(handle):
                return lambda: ps.acmod_stream_offset(acmod)
        except (OSError, AttributeError, ValueError):
            pass

        def first_segment_start():
            for seg in decoder.seg():
                return seg.start_frame
            return 0

        return first_segment_start

    def start(self):
        self.samples = 0
        self.last_decoded = self.decoder.n_frames()
        # Per stretch: [input frame where it begins, input frames fed less n_frames() at the least]
        self.stretches = []

    def fed(self, samples):
        """After process_raw() of this many samples."""
        self.samples += samples
        decoded = self.decoder.n_frames()
        if decoded == self.last_decoded:  # nothing reached the search (a dropped silence)
            return
        self.last_decoded = decoded
        ahead = self.samples / self.samples_per_frame - decoded
        begins = self.read_offset()
        if not self.stretches or self.stretches[-1][0] != begins:
            self.stretches.append([begins, ahead])
        elif ahead < self.stretches[-1][1]:
            self.stretches[-1][1] = ahead

    def segments(self):
        """The hypothesis as (word, start, end) in the decoder's own frames (those its lattice counts)."""
        offset = self.read_offset()
        for seg in self.decoder.seg():
            yield seg.word, seg.start_frame - offset, seg.end_frame - offset

    def _spans(self):
        """Per stretch: (the decoder's frame it begins at, input frames dropped before it)."""
        if not self.stretches:
            return [(0, 0)]
        first_begins, first_ahead = self.stretches[0]
        spans = []
        for begins, ahead in self.stretches:
            dropped = first_begins + int(round(ahead - first_ahead))
            spans.append((begins - dropped, dropped))
        return spans

    def input_frame(self, frame):
        """The decoder's frame -> the input frame it was computed from."""
        spans = self._spans()
        dropped = spans[0][1]
        for begins, later_dropped in spans[1:]:
            if frame >= begins:
                dropped = later_dropped
        return frame + dropped

    def decoded_frame(self, frame):
        """An input frame -> the decoder's first frame at or after it (in a dropped silence: the next stretch's first)."""
        spans = self._spans()
        decoded = frame - spans[0][1]
        for (begins, dropped), following in zip(spans, spans[1:] + [None]):
            if frame >= begins + dropped:
                decoded = frame - dropped if following is None else min(frame - dropped, following[0])
        return decoded


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


class WordPosteriors:
    """How sure pocketsphinx is of each word of its hypothesis, from its word lattice.

    The decoder runs only its first (tree) pass, whose hypothesis comes without posteriors
    (hyp().prob and seg().prob are 0 unless -bestpath is on, which costs accuracy here). After an
    utterance the lattice of that pass is still there: this runs pocketsphinx's own forward-backward
    over it (ps_lattice_bestpath, then ps_lattice_posterior, with the decoder's -bestpathlw/-lw and
    -ascale as pocketsphinx's bestpath pass would) and, for each word of the hypothesis, adds up the
    posteriors of the lattice links of that word that span its middle frame. The Python bindings do
    not expose these calls, so they are reached with ctypes; any failure leaves the figure unknown.
    """

    def __init__(self, decoder, config):
        self.ps = None
        try:
            ps = ctypes.CDLL('libpocketsphinx.so.3')
            base = ctypes.CDLL('libsphinxbase.so.3')
            vp, i32 = ctypes.c_void_p, ctypes.c_int32
            for name, res, args in (
                ('ps_get_lattice', vp, [vp]),
                ('ps_get_lm', vp, [vp, ctypes.c_char_p]),
                ('ps_lattice_bestpath', vp, [vp, vp, ctypes.c_float, ctypes.c_float]),
                ('ps_lattice_posterior', i32, [vp, vp, ctypes.c_float]),
                ('ps_lattice_get_logmath', vp, [vp]),
                ('ps_lattice_traverse_edges', vp, [vp, vp, vp]),
                ('ps_lattice_traverse_next', vp, [vp, vp]),
                ('ps_latlink_times', ctypes.c_int, [vp, ctypes.POINTER(ctypes.c_int16)]),
                ('ps_latlink_baseword', ctypes.c_char_p, [vp, vp]),
                ('ps_latlink_prob', i32, [vp, vp, ctypes.POINTER(i32)]),
            ):
                fn = getattr(ps, name)
                fn.restype, fn.argtypes = res, args
            base.logmath_exp.restype, base.logmath_exp.argtypes = ctypes.c_double, [vp, ctypes.c_int]
            self.ps, self.base = ps, base
            self.decoder = decoder
            self.lwf = config.get_float('-bestpathlw') / config.get_float('-lw')
            self.ascale = 1.0 / config.get_float('-ascale')
        except (OSError, AttributeError, RuntimeError, ZeroDivisionError):
            self.ps = None

    def average_log(self, words):
        """Mean natural log of the posteriors of (word, start_frame, end_frame), or None."""
        if self.ps is None or not words:
            return None
        ps = self.ps
        handle = int(self.decoder.this)
        dag = ps.ps_get_lattice(handle)
        lm = ps.ps_get_lm(handle, b'_default')
        if not dag or not lm or not ps.ps_lattice_bestpath(dag, lm, self.lwf, self.ascale):
            return None
        ps.ps_lattice_posterior(dag, lm, self.ascale)
        lmath = ps.ps_lattice_get_logmath(dag)
        links = []
        link = ps.ps_lattice_traverse_edges(dag, None, None)
        start = ctypes.c_int16()
        acoustic = ctypes.c_int32()
        while link:
            end = ps.ps_latlink_times(link, ctypes.byref(start))
            word = ps.ps_latlink_baseword(dag, link)
            if word:
                links.append((word.decode('utf-8', 'replace'), start.value, end, ps.ps_latlink_prob(dag, link, ctypes.byref(acoustic))))
            link = ps.ps_lattice_traverse_next(dag, None)
        total = 0.0
        for word, first, last in words:
            middle = (first + last) // 2
            mass = sum(self.base.logmath_exp(lmath, post) for (w, s, e, post) in links if w == word and s <= middle <= e)
            total += math.log(min(1.0, max(mass, 1e-10)))
        return total / len(words)


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


def load_decoder(args):
    """A decoder with our settings (`-name value` pairs) and its configuration."""
    config = Decoder.default_config()
    for i in range(0, len(args) - 1, 2):
        set_option(config, args[i], args[i + 1])
    config.set_string('-logfn', '/dev/null')
    return config, Decoder(config)


def connect(path):
    """The request and answer streams over the Unix socket the service listens on."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(path)
    return connection.makefile('rb'), connection.makefile('w', encoding='utf-8', newline='\n')


def main():
    args = sys.argv[1:]
    # `--socket PATH` first: requests and answers go over that Unix socket (the service listens on
    # it) instead of stdin/stdout, when a process launcher started this process for the service.
    streams = None
    if len(args) >= 2 and args[0] == '--socket':
        streams = connect(args[1])
        args = args[2:]
    config, decoder = load_decoder(args)
    stdin, out = streams if streams else (sys.stdin.buffer, sys.stdout)
    serve(config, decoder, stdin, out)


# Linux's PR_SET_NAME: the name `ps -o comm`, top and /proc/PID/comm show for a process.
PR_SET_NAME = 15


def name_process(name):
    """Names this process (a decoder forked by the fork server has the fork server's command line)."""
    try:
        ctypes.CDLL(None).prctl(PR_SET_NAME, name.encode('ascii'), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def serve(config, decoder, stdin, out):
    """Answers requests (see the top of this file) until the request stream ends."""
    name_process('svc-decoder')
    frame_rate = float(config.get_int('-frate'))
    timeline = Timeline(decoder, config.get_float('-samprate') / frame_rate)
    levels = InputLevels(config.get_float('-samprate') / frame_rate)
    # The input's levels place only on a new stream's timeline (see Timeline): not after S.
    levels_placed = False
    cmn = CepstralMean(decoder)
    posteriors = WordPosteriors(decoder, config)
    out.write('R\n' if cmn.cmn else 'R nocmn\n')
    out.flush()
    in_utterance = False
    last_partial = ''
    report_settled = False
    last_settled = ''
    pieces = speech_pieces = 0
    while True:
        header = stdin.readline()
        if not header:
            return
        try:
            kind = header[:1]
            if kind == b'S' or kind == b'N' or kind == b'L':
                if in_utterance:
                    decoder.end_utt()
                if kind != b'S':
                    decoder.start_stream()
                report_settled = kind == b'L'
                last_settled = ''
                pieces = speech_pieces = 0
                if cmn.cmn:
                    given = header[1:].strip()
                    cmn.set([float(v) for v in given.split(b',')] if given else cmn.fresh)
                decoder.start_utt()
                timeline.start()
                levels.start()
                levels_placed = kind != b'S'
                in_utterance = True
                last_partial = ''
            elif kind == b'A':
                size = int(header[2:])
                data = stdin.read(size)
                answer = 'P\n'
                if in_utterance:
                    decoder.process_raw(data, False, False)
                    timeline.fed(len(data) // 2)
                    if levels_placed:
                        levels.fed(data)
                    pieces += 1
                    if decoder.get_in_speech():
                        speech_pieces += 1
                    if cmn.cmn:
                        cmn.update()
                    hyp = decoder.hyp()
                    text = hyp.hypstr if hyp is not None else ''
                    if text != last_partial:
                        last_partial = text
                        answer = 'P ' + text + '\n'
                    if report_settled:
                        settled = settled_text(decoder, timeline)
                        if settled != last_settled:
                            last_settled = settled
                            out.write('K ' + settled + '\n')
                    # With every P: the words may stay the same while unrecognized speech grows.
                    out.write('U %d\n' % unrecognized_speech_ms(timeline, frame_rate, levels if levels_placed else None))
                # Every piece is answered: the caller counts what is still waiting to be decoded.
                out.write(answer)
                out.flush()
            elif kind == b'E' or kind == b'X' or kind == b'W':
                text = ''
                times = ''
                confidence = '- 1'
                if in_utterance:
                    decoder.end_utt()
                    in_utterance = False
                    if kind != b'X':
                        hyp = decoder.hyp()
                        text = hyp.hypstr if hyp is not None else ''
                    if kind == b'W':
                        times = word_times(frame_rate, timeline)
                        # In the decoder's own frames, as the lattice's links are.
                        words = [(ALTERNATE.sub('', word), start, end) for word, start, end in timeline.segments() if is_word(word)]
                        average = posteriors.average_log(words)
                        no_speech = 1.0 - speech_pieces / pieces if pieces else 1.0
                        confidence = '%s %.4f' % ('-' if average is None else '%.4f' % average, no_speech)
                    if cmn.cmn:
                        out.write('C ' + ','.join('%.6g' % v for v in cmn.get()) + '\n')
                if kind == b'W':
                    out.write('T ' + times + '\n')
                    out.write('Q ' + confidence + '\n')
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
