"""Speech segments from a 16 kHz stream: WebRTC's voice-activity detector with a hangover.

``SpeechSegmenter.feed(pcm16, t)`` takes 16 kHz int16 samples (any length; ``t`` is the time
of the first one) and returns the segments that ended in them, each a ``Segment(start, end,
pcm)`` with ``pcm`` the segment's samples with ``pad_ms`` of what came before and the hangover's
silence after (the recogniser wants a little silence around a word). The detector (``webrtcvad``, the
``voice`` extra) classifies 20 ms frames; a segment opens at the first of ``open_frames``
voiced frames in a row (3, 60 ms: a click or a knock does not open one); from then on a frame
belongs to the sound while it is within 35 dB of the segment's loudest and 12 dB over the noise
floor (the detector is stingy with quiet voices after an onset, and its own hangover adds
~200 ms), and the segment closes after ``hangover_ms`` of frames that do not (120 ms), or when
it reaches ``max_ms`` (2 s: a command is a word, not a sentence). Segments with less than
``min_ms`` of sound (120 ms) are dropped.

When a segment closes it is judged again against the floor as it is then: its sound is the
10 ms steps within 35 dB of its loudest and 12 dB over that floor; runs of sound a hangover or
more apart become separate segments (then runs with less than ``min_ms`` of sound are dropped),
and a segment with no sound left is dropped. A
segment's ``start``/``end`` are its run's first and last such step. This is what keeps a
fade-in (or a fan switched on) from joining the next sound: the floor is held down by the quiet
start for up to a second, so the room's noise counts as sound while the segment is open, but
by the time the segment closes the floor has caught up with the noise and the noise is cut
away (before this, ``clap_k_triple.wav`` gave one event from 0.22 to 1.50 s for a clap at
1.265 s).

A frame counts as voiced only when it is also 12 dB over the noise floor (the quietest 20 ms
of the last second), so steady hiss, hum and fan noise, which the detector alone often calls
speech, open nothing; a stream that starts in the middle of a word may miss that word.

Cost: ~10 us per 20 ms frame (the C detector); nothing else while it is quiet. Silence, hum
and steady noise give no segment; music and speech that is not a command do (the recogniser
then rejects them). Aggressiveness ``mode`` 0..3 (3 rejects the most noise, and some quiet
speech). Fails only on a frame of the wrong size (a programming error).

With ``transients=True`` (what taught sounds use) a segment also opens on an onset: a frame
``ONSET_DB`` (20 dB) over the noise floor and ``RISE_DB`` (10 dB) over the frame before it, voiced
or not, so a snap, a finger click or a knock shorter than 60 ms opens one. Such a segment keeps
``min_transient_ms`` (20 ms) of sound instead of ``min_ms``, and is marked ``transient`` unless a
run of ``open_frames`` voiced frames came in it (then it is what the voiced rule would have
opened: words are only looked for in segments that are not ``transient``). This is judged per
run when the segment closes, so the short claps in the noise after a fade-in are kept too. Both constants are
relative to the running floor, not absolute levels, and were set once, not tuned on the clips.

``voiced_segments(samples, rate)`` cuts a whole clip at any rate the same way (half a second of
silence added at each end, ``soxr`` to 16 kHz; the voice extra): what teaching from files uses,
so an example is cut as the voice stage cuts what it hears. ``to_pcm16`` is the float -> int16
step every caller of ``feed`` takes.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from sensekit.arg_types import ArgumentTypeError, checked
from sensekit.errors import ConfigError

__all__ = ["RATE", "Segment", "SpeechSegmenter", "to_pcm16", "voiced_segments"]

RATE = 16_000            # the rate of the detector and the recogniser
FRAME = 320              # 20 ms at 16 kHz
HOP = 160                # 10 ms: the resolution of start and end
QUIET = 10 ** (-35 / 10)  # a frame 35 dB under the segment's loudest counts as silence
OVER_FLOOR = 10 ** (12 / 10)   # voiced only 12 dB over the noise floor: steady noise never is
FLOOR_FRAMES = 50        # the noise floor is the quietest frame of the last second
ONSET_DB = 20.0          # transients: an onset is a frame 20 dB over the floor ...
RISE_DB = 10.0           # ... and 10 dB over the frame before it
ONSET = 10 ** (ONSET_DB / 10)
RISE = 10 ** (RISE_DB / 10)
_ONSET, _VOICE = 1, 2    # a frame's marks: an onset; the last of open_frames voiced frames


@dataclass(frozen=True, slots=True)
class Segment:
    """Voiced audio: ``start``/``end`` in the source's seconds, ``pcm`` (int16, 16 kHz) padded;
    ``t0`` is the time of ``pcm[0]``; ``transient`` when it opened on an onset and held no run of
    voiced frames (not speech: words are not looked for in it)."""
    start: float
    end: float
    pcm: np.ndarray
    t0: float
    transient: bool = False


class SpeechSegmenter:
    """Cuts a 16 kHz int16 stream into voiced segments (see the module docstring)."""

    @checked
    def __init__(self, *, mode: int = 2, open_frames: int = 3, hangover_ms: float = 120.0,
                 min_ms: float = 120.0, max_ms: float = 2000.0, pad_ms: float = 100.0,
                 vad: Any = None, transients: bool = False, min_transient_ms: float = 20.0) -> None:
        if vad is not None and not callable(getattr(vad, "is_speech", None)):
            raise ArgumentTypeError(f"`SpeechSegmenter(vad=...)` must be a voice activity detector with "
                                    f"is_speech(frame, rate) (webrtcvad.Vad) or None, got {type(vad).__name__}")
        self._mode = int(mode)
        self._own_vad = vad is None       # then reset() starts a fresh detector (it adapts as it goes)
        self._vad = vad
        self.open_frames = int(open_frames)
        self.hangover = max(1, round(hangover_ms / 20.0))
        self.min_frames = max(1, round(min_ms / 20.0))
        self.max_frames = max(self.open_frames + 1, round(max_ms / 20.0))
        self.pad = max(0, round(pad_ms / 20.0))
        self.transients = bool(transients)
        self.min_transient_frames = max(1, round(min_transient_ms / 20.0))
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new stream), the detector's own adaptation included."""
        if self._own_vad:
            import webrtcvad     # the `voice` extra; VoiceStage checks it is installed first

            self._vad = webrtcvad.Vad(self._mode)
        self._rest = np.zeros(0, np.int16)
        self._t_rest = 0.0
        self._before: deque[np.ndarray] = deque(maxlen=self.pad + self.open_frames)
        self._before_marks: deque[int] = deque(maxlen=self.pad + self.open_frames)
        self._marks: list[int] = []               # per frame of the open segment: ONSET | VOICE
        self._first_voice: int | None = None      # the first of them marked VOICE
        self._frames: list[np.ndarray] = []       # the open segment's frames
        self._voiced_run = 0
        self._silent_run = 0
        self._voiced = 0
        self._t0 = 0.0
        self._peak = 0.0
        self._recent = np.zeros(FLOOR_FRAMES)
        self._n_seen = 0
        self._floor = 1.0
        self._last_energy = np.inf          # the frame before (an onset rises over it)

    @property
    def in_speech(self) -> bool:
        return bool(self._frames)

    def feed(self, pcm: np.ndarray, t: float) -> list[Segment]:
        """Add samples (int16, 16 kHz) starting at time ``t``; the segments that ended."""
        if len(self._rest):
            pcm = np.concatenate([self._rest, pcm])
            t = self._t_rest
        n = len(pcm) // FRAME * FRAME
        out: list[Segment] = []
        for i in range(0, n, FRAME):
            out += self._frame(pcm[i:i + FRAME], t + i / RATE)
        self._rest = pcm[n:].copy()
        self._t_rest = t + n / RATE
        return out

    def flush(self, t: float) -> list[Segment]:
        """The end of the stream at time ``t``: the open segment, if long enough."""
        if not self._frames:
            return []
        self._rest = np.zeros(0, np.int16)
        for _ in range(self.hangover - self._silent_run):    # the silence the stream did not give
            self._frames.append(np.zeros(FRAME, np.int16))
        return self._close(t)

    def _frame(self, frame: np.ndarray, t: float) -> list[Segment]:
        energy = float(np.dot(frame, frame.astype(np.float64))) + 1.0
        self._recent[self._n_seen % FLOOR_FRAMES] = energy      # the noise floor: the quietest
        self._n_seen += 1                                       # frame of the last second
        seen = self._recent[:self._n_seen] if self._n_seen < FLOOR_FRAMES else self._recent
        floor = self._floor = float(seen.min())
        voiced = energy > floor * OVER_FLOOR and bool(self._vad.is_speech(frame.tobytes(), RATE))
        onset = (self.transients and energy > floor * ONSET and energy > self._last_energy * RISE)
        self._last_energy = energy
        self._voiced_run = self._voiced_run + 1 if voiced else 0
        by_voice = self._voiced_run >= self.open_frames
        mark = (_ONSET if onset else 0) | (_VOICE if by_voice else 0)
        if not self._frames:
            self._before.append(frame)
            self._before_marks.append(mark)
            if mark:                                      # open: keep the run and the padding
                self._frames = list(self._before)
                self._marks = list(self._before_marks)
                self._first_voice = next((i for i, m in enumerate(self._marks) if m & _VOICE), None)
                self._t0 = t - (len(self._frames) - 1) * FRAME / RATE
                self._voiced = self._voiced_run if by_voice else 1
                self._silent_run = 0
                self._peak = max(float(np.dot(f, f.astype(np.float64))) for f in self._frames)
                self._before.clear()
                self._before_marks.clear()
            return []
        self._frames.append(frame)
        if self._first_voice is None and mark & _VOICE:
            self._first_voice = len(self._marks)
        self._marks.append(mark)
        self._peak = max(self._peak, energy)
        # once open, the sound goes on while it stays within 35 dB of its loudest frame and over
        # the floor: the detector is stingy with quiet voices after an onset, and its own
        # hangover would add ~200 ms to every word
        if energy >= self._peak * QUIET and energy > floor * OVER_FLOOR:
            self._voiced += 1
            self._silent_run = 0
        else:
            self._silent_run += 1
        if self._silent_run >= self.hangover or self._length() >= self.max_frames:
            return self._close(t + FRAME / RATE)
        return []

    def _length(self) -> int:
        """The open segment's frames towards ``max_ms``: for a segment an onset opened before its
        first voiced run, counted as if the voiced run had opened it (speech is cut at 2 s where
        it was before onsets opened segments)."""
        n = len(self._frames)
        voice = self._first_voice
        before = self.pad + self.open_frames
        return n if voice is None or voice < before else n - (voice + 1 - before)

    def _before_voice(self, frames: list[np.ndarray], marks: np.ndarray) -> int:
        """Frames an onset opened the segment before the voiced rule would have, when they hold
        no sound apart from that voice (then the segment is cut as the voiced rule cuts it: speech
        is the same with onsets or without); else 0."""
        voiced = np.nonzero(marks & _VOICE)[0]
        before = self.pad + self.open_frames
        if not len(voiced) or voiced[0] < before:
            return 0
        voice = int(voiced[0])
        skip = voice + 1 - before
        e = np.array([float(np.dot(f, f.astype(np.float64))) for f in frames])
        loud = np.nonzero((e >= e.max() * QUIET) & (e > self._floor * OVER_FLOOR))[0]
        chain = np.append(loud[loud < skip], skip)       # sound before the voice, up to it
        return skip if len(chain) == 1 or np.diff(chain).max() <= self.hangover else 0

    def _close(self, t_end: float) -> list[Segment]:
        frames, voiced = self._frames, self._voiced
        marks = np.array(self._marks + [0] * (len(frames) - len(self._marks)))   # flush's silence
        self._frames = []
        self._voiced_run = 0
        onsets = bool((marks & _ONSET).any())
        if voiced < (self.min_transient_frames if onsets else self.min_frames):
            return []
        t0, skip = self._t0, self._before_voice(frames, marks)
        if skip:                          # speech an onset opened early: cut where the voiced rule
            frames, marks = frames[skip:], marks[skip:]       # would have opened it
            t0 += skip * FRAME / RATE
        pcm = np.concatenate(frames)
        # re-judged with the floor as it is now (it may have risen since the segment opened, after
        # a fade-in or when a fan was switched on): the sound is the 10 ms steps within 35 dB of
        # the loudest and 12 dB over the floor (a 10 ms step holds half a frame's energy); runs
        # of it apart by a hangover or more are separate segments, and then a run with less than
        # min_ms of sound is dropped. Start and end are a run's first and last step (the
        # detector's decisions come in 20 ms steps and lag the sound).
        n = len(pcm) // HOP
        e = (pcm[:n * HOP].astype(np.float64).reshape(n, HOP) ** 2).sum(axis=1)
        loud = np.nonzero((e >= e.max() * QUIET) & (2.0 * e > self._floor * OVER_FLOOR))[0]
        if not len(loud):
            return []
        gap = 2 * self.hangover
        cuts = np.nonzero(np.diff(loud) > gap)[0]
        runs = np.split(loud, cuts + 1)
        out: list[Segment] = []
        for run in runs:
            # a run an onset began needs min_transient_ms of sound, the others min_ms (one run
            # without an onset: the count of voiced frames above said so); it is transient (no
            # words in it) unless it also holds a voiced run and lasts min_ms
            f0, f1 = max(0, run[0] // 2 - 1), run[-1] // 2 + 1
            by_onset = bool((marks[f0:f1] & _ONSET).any())
            short = len(run) < 2 * self.min_frames
            if by_onset and len(run) < 2 * self.min_transient_frames:
                continue
            if not by_onset and short and (len(runs) > 1 or voiced < self.min_frames):
                continue
            transient = by_onset and (short or not (marks[f0:f1] & _VOICE).any())
            start = t0 + run[0] * HOP / RATE
            end = min(t_end, t0 + (run[-1] + 1) * HOP / RATE)
            if len(runs) == 1:
                out.append(Segment(start, end, pcm, t0, transient))
                continue
            a = max(0, (run[0] - 2 * self.pad) * HOP)
            b = min(len(pcm), (run[-1] + 1 + gap) * HOP)
            out.append(Segment(start, end, pcm[a:b], t0 + a / RATE, transient))
        return out


def to_pcm16(y: np.ndarray) -> np.ndarray:
    """Float samples (-1..1, 16 kHz) as the int16 that ``SpeechSegmenter.feed`` takes."""
    pcm: np.ndarray = (np.clip(y, -1.0, 1.0) * 32767.0).astype(np.int16)
    return pcm


def voiced_segments(samples: np.ndarray, rate: int, *, what: str = "the example",
                    transients: bool = False) -> list[Segment]:
    """Every voiced segment of a whole clip (float samples, mono or (n, ch), at ``rate``), cut as
    the voice stage cuts a stream (``transients``: onsets open segments too, as for taught
    sounds); a ``ConfigError`` naming ``what`` under 8000 Hz."""
    import soxr    # the voice extra

    from sensekit.audio.level import mono

    if rate < 8000:
        raise ConfigError(f"{what}: sounds and words are taught from audio at 8000 Hz or more, got {rate} Hz")
    pad = np.zeros(rate // 2, np.float32)                 # room for the detector on both sides
    y = soxr.resample(np.concatenate([pad, mono(np.asarray(samples, np.float32)), pad]), rate, RATE)
    seg = SpeechSegmenter(transients=transients)
    found: list[Segment] = seg.feed(to_pcm16(y), 0.0) + seg.flush(len(y) / RATE)
    return found
