"""``VoiceStage``: command words and taught sounds as one Runner stage (the ``voice`` extra).

Per audio block the stage mixes to mono, resamples to 16 kHz (``soxr``'s streaming resampler:
any input rate from 8 kHz up) and feeds WebRTC's voice-activity detector
(``sensekit.audio.vad``). Only when a voiced segment ends does it recognise: the command words
(``sensekit.audio.words``: ``word`` events) and the taught sounds (``sensekit.audio.sounds``:
``sound`` events). Silence and steady noise never reach a recogniser; an event's ``t`` is the
end of the block in which the segment closed (``hangover_ms`` after the sound stops).

Settings (group ``voice``): ``words`` (the command list; ``--words left,right,jump``, or
``[voice] words = [...]`` in a venue profile), ``threshold`` and ``min_coverage`` of the word
spotter, ``vad_mode`` (0..3) and ``hangover_ms`` of the segmenter, ``widen_band`` (off: fill the
empty top band of audio sampled under 14 kHz before recognising words), ``sound_distance`` for
taught sounds and ``taught_threshold`` for taught words. The taught sounds themselves are a
``SoundBook``, the taught words a ``TaughtWords`` (``sensekit.audio.taught_words``), both given
to the constructor.

Two paths for words: a listed word that has takes in ``taught`` is heard by its classifier on
speech embeddings; the others by PocketSphinx keyword spotting over the English dictionary
(``word_paths()`` says which is which). A segment goes to the classifier first, and to the
spotter only when the classifier heard none of its words.

Only what someone listens to runs (``listen``); a stage switched on again starts a fresh
stream. Cost: resampling (~20 us per 10 ms block) and the detector (~10 us per 20 ms) always;
recognition only on voiced segments (see ``words`` and ``sounds``); with taught sounds an onset
opens a segment too (``vad``'s ``transients``), and such a segment goes to the sounds only. Failure modes: a missing
extra is a ``ConfigError`` naming the install; NaN/Inf blocks are skipped and restart the
stream; a rate change mid-stream restarts it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from typing import Any, Literal, Mapping

import numpy as np

from sensekit.arg_types import checked
from sensekit.audio.level import mono
from sensekit.audio.sounds import SoundBook
from sensekit.audio.taught_words import TaughtWords
from sensekit.audio.vad import RATE, Segment, SpeechSegmenter, to_pcm16
from sensekit.capture.base import AudioBlock
from sensekit.errors import ConfigError
from sensekit.events import Event
from sensekit.settings import Setting, Tunable, setting

__all__ = ["VoiceStage"]


class VoiceStage(Tunable, section="voice",
                 title="voice commands and taught sounds (the voice extra)"):
    consumes: Literal["audio"] = "audio"
    emits = frozenset({"word", "sound"})
    always_run = False
    words: Setting[tuple[str, ...]] = setting(
        (), "command words to listen for (English, from the recogniser's dictionary, or taught from "
        "takes: sensekit teach words)",
        kind="words", flag="--words")
    threshold: Setting[float] = setting(
        -0.8, "word score needed (log-likelihood ratio per 10 ms frame against a "
        "free phone loop; higher: fewer false words, more missed ones)", unit="score", lo=-20, hi=20)
    min_coverage = setting(0.6, "share of the voiced segment the word must cover", unit="fraction",
                           lo=0, hi=1)
    vad_mode = setting(2, "voice-activity aggressiveness (0 lets most through, 3 rejects most noise)",
                       kind="int", lo=0, hi=3)
    hangover_ms = setting(120.0, "silence that ends a segment (the events' delay)", unit="ms",
                          lo=60, hi=2000)
    widen_band = setting(False, "below 14 kHz input: fill the top band the source lacks before recognising "
                         "words (telephone audio; see sensekit.audio.narrowband)")
    sound_distance = setting(
        1.5, "taught sounds: distance to the nearest example accepted, in units "
        "of the examples' own spread (higher: more sounds accepted)", unit="spread", lo=0.1, hi=10)
    taught_threshold = setting(
        0.2, "words taught from takes (sensekit teach words): probability needed (higher: fewer "
        "false words, more missed ones)", unit="probability", lo=0.01, hi=0.99)

    @checked
    def __init__(self, values: Mapping[str, Any] | None = None, *, sounds: SoundBook | None = None,
                 taught: TaughtWords | None = None, channels: int | None = None) -> None:
        from sensekit.audio.words import require_voice

        require_voice()
        import soxr       # the voice extra (checked just above)

        self._soxr = soxr
        self.sounds = sounds
        self.taught = taught
        self.taught_listed: tuple[str, ...] = ()      # the listed words heard by ``taught``
        self.channels = channels
        self.spotter: Any = None
        self.segmenter: SpeechSegmenter | None = None
        self.init_settings(values)
        self._build_spotter()
        self._build_segmenter()
        self.emits = frozenset(n for n, on in (("word", bool(self.words)), ("sound", sounds is not None)) if on)
        if not self.emits:
            raise ConfigError("the voice stage needs command words (--words) or taught sounds (--sounds)")
        self._on = True
        self._rate: int | None = None
        self._resampler: Any = None
        self._t_stream = 0.0
        self._n_out = 0
        self.segments = 0          # voiced segments seen (benchmarks, stats)
        #: called with every voiced segment before it is recognised (the panel's sound card)
        self.segment_hooks: list[Callable[[Segment], None]] = []
        self.skipped_blocks = 0

    # -- settings --------------------------------------------------------------------
    def _build_spotter(self) -> None:
        from sensekit.audio.words import WordSpotter

        known = set(self.taught.words) if self.taught is not None else set()
        self.taught_listed = tuple(w.lower() for w in self.words if w.lower() in known)
        spoken = tuple(w for w in self.words if w.lower() not in known)
        if self.taught_listed and self.taught is not None:
            self.taught.embedder()                # load the model now: a missing one fails at the start
        self.spotter = WordSpotter(spoken, threshold=self.threshold,
                                   min_coverage=self.min_coverage) if spoken else None
        self._tell_band()

    def check_live(self, values: Mapping[str, Any]) -> None:
        """Listed words must be taught or in the recogniser's dictionary (an unknown word sent
        over OSC used to stop the run at the next block, when the spotter was rebuilt)."""
        from sensekit.audio.words import check_in_dictionary

        known = set(self.taught.words) if self.taught is not None else set()
        check_in_dictionary([w for w in values["words"] if w.lower() not in known])

    def word_paths(self) -> dict[str, str]:
        """Each listed word and what hears it: ``"taught"`` (its takes) or ``"dictionary"``."""
        return {w: "taught" if w.lower() in self.taught_listed else "dictionary" for w in self.words}

    def _build_segmenter(self) -> None:
        # taught sounds hear short sounds too: onsets open segments (words skip those, see recognise)
        self.segmenter = SpeechSegmenter(mode=self.vad_mode, hangover_ms=self.hangover_ms,
                                         transients=self.sounds is not None)

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        if "words" in changed:
            self._build_spotter()
        elif self.spotter is not None:
            self.spotter.threshold = self.threshold
            self.spotter.min_coverage = self.min_coverage
            self._tell_band()
        if "vad_mode" in changed or "hangover_ms" in changed:
            self._build_segmenter()
            self._rate = None                     # a fresh stream

    # -- the stage -------------------------------------------------------------------
    def listen(self, wanted: AbstractSet[str]) -> None:
        """Run only while someone listens to ``word`` or ``sound`` (called by the runner)."""
        on = self.always_run or bool(wanted & self.emits)
        if on and not self._on:
            self._rate = None                     # restart: no gap inside the stream
        self._on = on

    def process(self, item: Any) -> Iterable[Event]:
        if not isinstance(item, AudioBlock) or not self._on:
            return ()
        if self._pending:
            self.apply_pending()
        x = item.samples
        if x.ndim != 1 or x.dtype.char != "f":
            x = mono(x, channels=self.channels, index=item.index)
        if len(x) == 0:
            return ()
        if not np.isfinite(x).all():
            self.skipped_blocks += 1
            self._rate = None
            return ()
        if item.rate != self._rate:
            self._start_stream(item.rate, item.t)
        y = self._resampler.resample_chunk(x)
        t_first = self._t_stream + self._n_out / RATE
        self._n_out += len(y)
        pcm = to_pcm16(y)
        assert self.segmenter is not None
        out: list[Event] = []
        t_heard = item.t + len(x) / item.rate
        for segment in self.segmenter.feed(pcm, t_first):
            out.extend(self.recognise(segment, t_heard))
        return out

    def finish(self) -> list[Event]:
        """The end of the source: recognise the segment still open (called by the runner)."""
        if not self._on or self.segmenter is None or self._rate is None:
            return []
        out: list[Event] = []
        tail = self._resampler.resample_chunk(np.zeros(0, np.float32), last=True)
        t = self._t_stream + self._n_out / RATE
        self._n_out += len(tail)
        segments = self.segmenter.feed(to_pcm16(tail), t)
        t = self._t_stream + self._n_out / RATE
        for segment in segments + self.segmenter.flush(t):
            out.extend(self.recognise(segment, t))
        self._rate = None                         # more audio starts a new stream
        return out

    def recognise(self, segment: Segment, t: float) -> list[Event]:
        """The events of one voiced segment (heard at time ``t``)."""
        self.segments += 1
        for hook in self.segment_hooks:
            hook(segment)
        out: list[Event] = []
        word = None
        spoken = not segment.transient            # an onset without voice: only a taught sound
        if spoken and self.taught_listed and self.taught is not None:
            word = self.taught.spot(segment, t, threshold=self.taught_threshold, among=self.taught_listed)
        if word is None and spoken and self.spotter is not None:
            word = self.spotter.spot(segment, t)
        if word is not None:
            out.append(word)
        if self.sounds is not None:
            sound = self.sounds.match(segment, t, distance=self.sound_distance)
            if sound is not None:
                out.append(sound)
        return out

    def _start_stream(self, rate: int, t: float) -> None:
        if rate < 8000:
            raise ConfigError(f"voice commands need audio at 8000 Hz or more, got {rate} Hz")
        self._rate = rate
        self._resampler = self._soxr.ResampleStream(rate, RATE, 1, dtype="float32")
        self._tell_band()
        self._t_stream = t
        self._n_out = 0
        assert self.segmenter is not None
        self.segmenter.reset()

    def _tell_band(self) -> None:
        """The spotter widens a narrow band only when ``widen_band`` is on (and the rate known)."""
        rate = getattr(self, "_rate", None)
        if self.spotter is not None:
            self.spotter.band_hz = rate / 2.0 if rate and self.widen_band else None
