"""Clap detection: one event per hand clap, told apart from other sounds by what a clap *is*.

A hand clap is a very short, broadband, noise-like burst: the envelope jumps tens of dB
above what came before within a millisecond or two, the burst has energy across the
octaves from ~500 Hz to 4 kHz and above (no single resonance, no harmonics), and it dies
away within a few milliseconds, leaving only the room's reverberation. Loudness alone
decides nothing. ``ClapDetector`` measures, on every candidate onset, over a window from
1 ms before the onset to ``window_ms`` (10) after the peak (0.5 ms envelope frames, one
Hann-windowed FFT):

=================  ==================================================================
feature            what it rejects (default threshold)
=================  ==================================================================
``contrast_db``    1 ms peak over the ambient (20th percentile of the 1 ms powers 3-30
                   ms before the onset), >= 38 dB: speech consonants, music notes and
                   footsteps rise out of sound that is already there.
``attack_db``      peak over the 2 ms just before the onset, >= 12 dB: sounds that
                   swell (vowels, coughs building up, bowed notes).
``steep_db``       largest rise of the envelope within 1 ms on the way to the peak,
                   >= 14 dB: a clap's peak comes at once; a cough's burst builds up
                   over several milliseconds.
``decay_db``       mean power 4..10 ms after the peak relative to the peak, <= -3 dB:
                   sustained sounds (alarms, hums, steady noise, most of a cough).
``width_ms``       time within 10 dB of the peak, 1.5..12 ms: sub-millisecond
                   clicks and ringing/sustained sounds.
``hf_db``          share of the burst's energy above ``hf_hz`` (2 kHz), >= -22 dB:
                   door knocks, thumps and footfalls on soft floors.
``spread_db``      weakest of the 0.5-1, 1-2, 2-4 kHz octaves relative to the
                   strongest octave, >= -25 dB: narrow-band and tonal bursts (clinks,
                   beeps, plucked notes). These octaves exist at every rate from 8 kHz.
``flatness``       spectral flatness above 2 kHz, >= 0.03: tonal high sounds.
=================  ==================================================================

A burst whose energy is mostly below 2 kHz (``hf_db < thump_hf_db``, -10 dB) - a
cupped clap, or a clap that clipped the microphone, as in a small room at full scale -
must in addition look like a *short* thump: ``decay_db <= -7`` and ``width_ms <= 9``; a
door knock rings longer. Thresholds are set in physical units with margins between the
classes measured on the developer clips (``tests/audio/test_real_clips.py``); no
threshold sits on a single clip.

Streaming: blocks of any size at 8-48 kHz, (n,) or (n, ch) (mixed down; ``channels=1``
makes a stereo block an error). Per block the detector compares the block's energy with
the two blocks before (the level stage passes it in, so it is computed once) and keeps
a reference to the block (~70 ms of history; sources hand over fresh arrays). Only a
block whose energy jumps ``candidate_ratio`` (4x, 6 dB) is analysed: its strongest
envelope peak (searched over the block and at least 8 ms, +3 ms) is judged as soon as
``window_ms`` after it have arrived. The stream is assumed to start in silence (a clap
in its first milliseconds counts). Cost: ~1-2 us per ordinary block, ~100 us per
analysed candidate (a few per second of busy sound).

Latency: for blocks of at least ~10 ms (512 samples at 48 kHz) the event comes with the
block holding the onset or the next one; with smaller blocks, ``window_ms`` after the
peak. ``t`` is the onset (first 0.5 ms frame within 10 dB of the peak); ``strength`` is
the peak's activity level / 100 (0..1). Claps closer than ``min_gap_ms`` (90 ms) merge.

``ClapPatternTracker`` turns claps into ``ClapPattern`` events: ``count`` claps, each
within ``max_gap_ms`` of the previous one (a double clap is ``count=2``).

Failure modes: ``ConfigError`` for a rate outside 8000..48000 Hz, a rate change
mid-stream, a stereo block with ``channels=1``, or a bad setting (each names the value).
A block with NaN/Inf samples is logged, counted in ``skipped_blocks`` and skipped; the
history restarts after it. Known limits (developer set): keyboard clicks close to the
microphone pass as claps; at 8-16 kHz, or with blocks other than 512 samples, the onset
of a cough occasionally does; claps in a room noisier than ~38 dB below the clap peak
need a lower ``min_contrast_db``.
"""
from __future__ import annotations

import logging
import math
from collections import deque
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from sensekit.audio.gain import UNITY_GAIN, gain_to_factor
from sensekit.audio.level import db_to_level, level_to_db, mono
from sensekit.capture.base import AudioBlock
from sensekit.errors import ConfigError
from sensekit.events import Clap, ClapPattern
from sensekit.validate import check_int_range, check_positive, check_range

log = logging.getLogger(__name__)

_NO_CLAPS: tuple[Clap, ...] = ()   # shared empty result (no allocation per quiet block)

MIN_RATE = 8000
MAX_RATE = 48000
_TINY = 1e-20


def check_rate(rate: int, what: str = "detector") -> int:
    """Validate a sample rate for the audio detectors (8000..48000 Hz)."""
    if isinstance(rate, bool) or not isinstance(rate, (int, np.integer, float)) or rate != int(rate):
        raise ConfigError(f"sample rate must be an integer number of Hz, got {rate!r}")
    r = int(rate)
    if not MIN_RATE <= r <= MAX_RATE:
        raise ConfigError(
            f"sample rate {r} Hz is not supported by the {what}; it handles {MIN_RATE}..{MAX_RATE} Hz"
        )
    return r


@dataclass(frozen=True, slots=True)
class BurstFeatures:
    """What the detector measured on one candidate onset (for tuning and plots)."""
    t_onset: float         # s
    t_peak: float          # s
    peak_db: float         # dBFS, 1 ms around the peak
    contrast_db: float     # peak above the ambient before the onset
    attack_db: float       # peak above the 2 ms just before the onset
    decay_db: float        # 4 ms..window after the peak, relative to the peak
    width_ms: float        # time within 10 dB of the peak
    hf_db: float           # energy above ``hf_hz`` relative to the whole burst
    flatness: float        # spectral flatness above ``hf_hz``
    centroid_hz: float
    spread_db: float       # weakest of the 0.5-1, 1-2, 2-4 kHz octaves relative to the strongest
    steep_db: float        # largest 1 ms rise of the envelope in the 6 ms up to the peak

    def as_dict(self) -> dict[str, float]:
        return {k: float(getattr(self, k)) for k in self.__slots__}


def _frames_power(x: np.ndarray, hop: int) -> np.ndarray:
    n = len(x) // hop
    f = x[: n * hop].reshape(n, hop).astype(np.float64)
    return np.einsum("ij,ij->i", f, f) / hop


class ClapDetector:
    """Streaming hand-clap detector: ``feed(block)`` or ``process(samples, t, rate)``.

    Settings are keyword-only and in physical units; the module docstring says what
    each one rejects. ``min_level`` is an activity level (0..100, the ``level.py``
    mapping, after ``gain``) that a clap's 1 ms peak must reach.
    """

    def __init__(
        self,
        *,
        rate: int | None = None,
        channels: int | None = None,
        gain: float = UNITY_GAIN,
        min_level: float = 20.0,
        min_contrast_db: float = 38.0,
        min_attack_db: float = 12.0,
        min_steep_db: float = 14.0,
        max_decay_db: float = -3.0,
        min_width_ms: float = 1.5,
        max_width_ms: float = 12.0,
        hf_hz: float = 2000.0,
        min_hf_db: float = -22.0,
        min_spread_db: float = -25.0,
        min_flatness: float = 0.03,
        thump_hf_db: float = -10.0,
        thump_max_decay_db: float = -7.0,
        thump_max_width_ms: float = 9.0,
        min_gap_ms: float = 90.0,
        window_ms: float = 10.0,
        candidate_ratio: float = 4.0,
    ) -> None:
        self.rate = check_rate(rate, "clap detector") if rate is not None else None
        self.channels = None if channels is None else check_int_range("channels", channels, 1, 64)
        self.gain = check_range("gain", gain, 0, 100)
        self._gain2 = gain_to_factor(self.gain) ** 2
        self.min_level = check_range("min_level", min_level, 0, 100)
        self._min_peak_db = level_to_db(self.min_level)
        self.min_contrast_db = check_range("min_contrast_db", min_contrast_db, 0, 150)
        self.min_attack_db = check_range("min_attack_db", min_attack_db, 0, 150)
        self.min_steep_db = check_range("min_steep_db", min_steep_db, 0, 150)
        self.max_decay_db = check_range("max_decay_db", max_decay_db, -150, 0)
        self.min_width_ms = check_positive("min_width_ms", min_width_ms, allow_zero=True)
        self.max_width_ms = check_positive("max_width_ms", max_width_ms)
        if self.max_width_ms < self.min_width_ms:
            raise ConfigError(f"`max_width_ms` must be >= `min_width_ms` ({min_width_ms!r}), "
                              f"got {max_width_ms!r}")
        self.hf_hz = check_range("hf_hz", hf_hz, 100, 3500)
        self.min_hf_db = check_range("min_hf_db", min_hf_db, -150, 0)
        self.min_flatness = check_range("min_flatness", min_flatness, 0, 1)
        self.min_spread_db = check_range("min_spread_db", min_spread_db, -150, 0)
        self.thump_hf_db = check_range("thump_hf_db", thump_hf_db, -150, 0)
        self.thump_max_decay_db = check_range("thump_max_decay_db", thump_max_decay_db, -150, 0)
        self.thump_max_width_ms = check_positive("thump_max_width_ms", thump_max_width_ms)
        self.min_gap_ms = check_positive("min_gap_ms", min_gap_ms, allow_zero=True)
        self.window_ms = check_range("window_ms", window_ms, 5, 50)
        self.candidate_ratio = check_range("candidate_ratio", candidate_ratio, 1, 1e6)
        #: when True, the features of every analysed candidate are appended to ``features``
        self.keep_features = False
        self.features: list[BurstFeatures] = []
        self.skipped_blocks = 0
        self.reset()

    def set_gain(self, gain: float) -> None:
        """Change the gain (0..100, 50 = unity) from the next block on."""
        self.gain = check_range("gain", gain, 0, 100)
        self._gain2 = gain_to_factor(self.gain) ** 2

    # -- state ---------------------------------------------------------------
    def reset(self) -> None:
        """Forget the stream: history, pending candidate, last clap, start time."""
        self._blocks: deque[np.ndarray] = deque()
        self._buffered = 0                 # samples held in _blocks
        self._end = 0                      # absolute sample index after the last block
        self._origin = 0                   # absolute index of the stream's first sample
        self._e1 = 0.0                     # mean squares of the last two blocks
        self._e2 = 0.0
        self._pending: tuple[int, int] | None = None   # candidate block [start, end)
        self._last_peak = -(10**12)
        self._t0: float | None = None
        if self.rate is not None:
            self._configure(self.rate)

    def _configure(self, rate: int) -> None:
        self.rate = sr = rate
        self._hop = max(1, round(sr * 0.0005))                 # 0.5 ms envelope frames
        self._hop_ms = 1000.0 * self._hop / sr
        self._pre = round(sr * 0.045)                          # look-back before an onset
        self._post = round(sr * self.window_ms / 1000.0)
        self._keep = self._pre + self._post + round(sr * 0.025)
        self._gap = round(sr * self.min_gap_ms / 1000.0)
        self._search = round(sr * 0.008)
        self._nfft = 1 << math.ceil(math.log2(self._post + round(sr * 0.002)))
        self._window = np.hanning(self._nfft)
        self._freqs = np.fft.rfftfreq(self._nfft, 1.0 / sr)
        self._hi_band = (self._freqs >= self.hf_hz) & (self._freqs <= min(12000.0, 0.45 * sr))
        self._min_peak_db = level_to_db(self.min_level)
        # octave bands 250 Hz .. min(16 kHz, 0.45 * rate); the 0.5-4 kHz core exists at 8 kHz
        top = min(16000.0, 0.45 * sr)
        edges = [250.0, 500.0, 1000.0, 2000.0, 4000.0, 8000.0, 16000.0]
        edges = [e for e in edges if e < top] + [top]
        self._oct_edges = np.searchsorted(self._freqs, edges)
        self._oct_core = np.array([1, 2, 3])
        # a block is a candidate only if it could hold a peak above min_level
        self._min_block_ms = 10.0 ** ((self._min_peak_db - 20.0) / 10.0)

    # -- streaming -------------------------------------------------------------
    def process(self, samples: np.ndarray, t: float, rate: int, *, index: int = 0,
                energy: float | None = None) -> Sequence[Clap]:
        """Feed one block (float32, (n,) or (n, ch)); returns the claps it completes.

        ``energy`` is the block's mean square before gain, when the caller already has
        it (the level stage computes it once per block). NaN/Inf blocks are skipped.
        """
        if rate != self.rate:
            if self._t0 is not None:
                raise ConfigError(f"sample rate changed from {self.rate} to {rate} Hz at audio "
                                  f"block {index}; call reset() first")
            self._configure(check_rate(rate, "clap detector"))
        x = samples
        if x.ndim != 1 or x.dtype.char != "f":
            x = mono(x, channels=self.channels, index=index)
        n = len(x)
        if n == 0:
            return _NO_CLAPS
        if energy is None:
            energy = float(np.dot(x, x)) / n
        if not math.isfinite(energy):
            self.skipped_blocks += 1
            log.warning("clap detector: audio block %d at t=%.3f s has NaN/Inf samples; skipped "
                        "(history restarts at the next block)", index, t)
            self.reset()
            return _NO_CLAPS
        if self._t0 is None:
            # the stream is assumed to start in silence: a clap in its first ms still counts
            self._t0 = t
            self._blocks.append(np.zeros(self._pre, np.float32))
            self._buffered = self._end = self._origin = self._pre
        start = self._end
        blocks = self._blocks
        blocks.append(x)                    # kept by reference (~70 ms); sources never reuse buffers
        self._end = end = start + n
        self._buffered += n
        energy *= self._gain2
        e1 = self._e1
        e_ref = e1 if e1 < self._e2 else self._e2
        self._e2 = e1
        self._e1 = energy
        if self._pending is None:
            if energy < self._min_block_ms or energy <= self.candidate_ratio * e_ref:
                while self._buffered - len(blocks[0]) >= self._keep:
                    self._buffered -= len(blocks.popleft())
                return _NO_CLAPS
            self._pending = (start, end)
        if end < self._pending[0] + self._post:
            return _NO_CLAPS                   # the window after any peak cannot be complete yet
        out = self._analyse()
        self._trim()
        return out

    def _trim(self) -> None:
        """Drop old blocks, keeping the look-back of any pending candidate."""
        limit = self._end - self._keep
        if self._pending is not None:
            limit = min(limit, self._pending[0] - self._pre)
        blocks = self._blocks
        while len(blocks) > 1 and self._end - self._buffered + len(blocks[0]) <= limit:
            self._buffered -= len(blocks.popleft())

    def feed(self, block: AudioBlock) -> Sequence[Clap]:
        """Feed an ``AudioBlock``."""
        return self.process(block.samples, block.t, block.rate, index=block.index)

    # -- analysis ---------------------------------------------------------------
    def _analyse(self) -> Sequence[Clap]:
        """Find the strongest onset of the pending block; judge it once its window is in."""
        assert self._pending is not None
        buf = np.concatenate(self._blocks) if len(self._blocks) > 1 else self._blocks[0]
        base = self._end - len(buf)                    # absolute index of buf[0]
        hop = self._hop
        off = (-base) % hop                            # frames on absolute multiples of hop
        env = _frames_power(buf[off:], hop) * self._gain2
        f0 = base + off                                # absolute index of frame 0
        lo = max(0, -(-(self._pending[0] - f0) // hop))
        # search the candidate block (at least 8 ms of it) plus 3 ms, as far as it is in
        ms3 = max(1, round(3.0 / self._hop_ms))
        natural = (max(self._pending[1], self._pending[0] + self._search) - f0) // hop + ms3
        reg_end = min(natural, len(env))
        if reg_end <= lo:
            return _NO_CLAPS
        p = lo + int(np.argmax(env[lo:reg_end]))
        if p + self._post // hop + 1 > len(env):
            return _NO_CLAPS                                  # wait for the rest of the window
        if reg_end < natural:
            if p + ms3 >= reg_end:
                return _NO_CLAPS                              # the peak may still be rising
            tail = buf[off + len(env) * hop:]                 # samples not yet in a whole frame
            if len(tail) and float(np.dot(tail, tail)) / len(tail) * self._gain2 > env[p]:
                return _NO_CLAPS                              # something louder is just starting
        self._pending = None
        if env[max(0, p - round(8.0 / self._hop_ms)): p].max(initial=0.0) > env[p]:
            return _NO_CLAPS                                  # the tail of an earlier, louder sound
        p_abs = f0 + p * hop
        if p_abs - self._last_peak < self._gap:
            return _NO_CLAPS
        feats = self._features(env, p, f0, buf, base)
        if self.keep_features:
            self.features.append(feats)
        if not self.is_clap(feats):
            return _NO_CLAPS
        self._last_peak = p_abs
        strength = min(1.0, max(0.0, db_to_level(feats.peak_db) / 100.0))
        return [Clap(t=feats.t_onset, strength=strength)]

    def _features(self, env: np.ndarray, p: int, f0: int, buf: np.ndarray, base: int) -> BurstFeatures:
        sr = self.rate
        hop = self._hop
        hop_ms = self._hop_ms
        db = 10.0 * np.log10(env + _TINY)
        ms = lambda v: max(1, round(v / hop_ms))  # noqa: E731 - frames in v ms
        # peak: mean power of the 1 ms around the envelope maximum
        k1 = ms(1.0)
        pk_pow = float(env[max(0, p - k1 // 2): p + k1 // 2 + 1].mean())
        peak_db = 10.0 * math.log10(pk_pow + _TINY)
        # onset: first frame within 10 dB of the peak frame, at most 8 ms before it
        back = db[max(0, p - ms(8.0)): p + 1]
        onset_fr = p - len(back) + 1 + int(np.argmax(back >= db[p] - 10.0))
        # ambient before the onset: low percentile of 1 ms powers in [onset-30, onset-3] ms
        # (frames before the stream's first sample are virtual silence; they are used
        # only when fewer than 5 ms of real signal precede the onset)
        a = max(0, onset_fr - ms(30.0))
        b = max(0, onset_fr - ms(3.0))
        first_real = -(-(self._origin - f0) // hop)
        if b - max(a, first_real) >= ms(5.0):
            a = max(a, first_real)
        pre = env[a:b]
        m = len(pre) // k1 * k1
        if m:
            pre1 = np.sort(pre[len(pre) - m:].reshape(-1, k1).sum(axis=1)) / k1
            ambient = float(pre1[int(0.2 * (len(pre1) - 1))])     # 20th percentile
        else:
            ambient = float(env[: max(1, onset_fr)].min())
        contrast_db = peak_db - 10.0 * math.log10(ambient + _TINY)
        # attack: how far below the peak the 2 ms just before the onset were
        rise = env[max(0, onset_fr - ms(3.0)): max(1, onset_fr - ms(1.0))]
        attack_db = peak_db - 10.0 * math.log10(float(rise.mean()) + _TINY)
        # steepness: the largest rise over 1 ms on the way up (claps jump 20-40 dB at once)
        k2 = ms(1.0)
        lo_s = max(k2, p - ms(6.0))
        steep_db = float((db[lo_s: p + 1] - db[lo_s - k2: p + 1 - k2]).max()) if p >= k2 else 99.0
        # decay: mean power from 4 ms after the peak to the end of the window
        post = env[p + ms(4.0): p + ms(self.window_ms) + 1]
        decay_db = 10.0 * math.log10(float(post.mean()) + _TINY) - peak_db if len(post) else 0.0
        # width: frames within 10 dB of the peak frame, from the onset to the window end
        seg = db[onset_fr: p + ms(self.window_ms) + 1]
        width_ms = float(np.count_nonzero(seg >= db[p] - 10.0)) * hop_ms
        # spectrum of the burst: 1 ms before the onset to the end of the window
        s0 = max(0, f0 + onset_fr * hop - round(sr * 0.001) - base)
        x = buf[s0: s0 + self._nfft].astype(np.float64)
        if len(x) < self._nfft:
            x = np.concatenate([x, np.zeros(self._nfft - len(x))])
        spec = np.abs(np.fft.rfft(x * self._window)) ** 2 + _TINY
        total = float(spec.sum())
        hb = spec[self._hi_band]
        hf_db = 10.0 * math.log10(float(hb.sum()) / total)
        flatness = float(np.exp(np.mean(np.log(hb))) / np.mean(hb))
        centroid = float(np.dot(self._freqs, spec) / total)
        bands = np.add.reduceat(spec, self._oct_edges)[:-1]
        spread_db = 10.0 * math.log10(float(bands[self._oct_core].min()) / float(bands.max()))
        t0 = self._t0 or 0.0
        return BurstFeatures(
            t_onset=t0 + (f0 + onset_fr * hop - self._origin) / sr,
            t_peak=t0 + (f0 + p * hop - self._origin) / sr,
            peak_db=peak_db, contrast_db=contrast_db, attack_db=attack_db,
            decay_db=decay_db, width_ms=width_ms, hf_db=hf_db, flatness=flatness,
            centroid_hz=centroid, spread_db=spread_db, steep_db=steep_db,
        )

    def is_clap(self, f: BurstFeatures) -> bool:
        """The decision on measured features (public so tuning tools can replay it)."""
        thump = f.hf_db < self.thump_hf_db
        return (
            f.peak_db >= self._min_peak_db
            and f.contrast_db >= self.min_contrast_db
            and f.attack_db >= self.min_attack_db
            and f.steep_db >= self.min_steep_db
            and f.decay_db <= (self.thump_max_decay_db if thump else self.max_decay_db)
            and self.min_width_ms <= f.width_ms
            and f.width_ms <= (self.thump_max_width_ms if thump else self.max_width_ms)
            and f.hf_db >= self.min_hf_db
            and f.spread_db >= self.min_spread_db
            and f.flatness >= self.min_flatness
        )


class ClapPatternTracker:
    """Groups claps into n-clap patterns: ``count`` claps, consecutive gaps <= ``max_gap_ms``.

    ``add(clap)`` returns a ``ClapPattern`` when the ``count``-th clap of a run arrives,
    then starts a new run (so four quick claps give two double claps, not three).
    """

    def __init__(self, count: int = 2, max_gap_ms: float = 600.0, min_gap_ms: float = 0.0) -> None:
        self.count = check_int_range("count", count, 2, 16)
        self.max_gap_ms = check_positive("max_gap_ms", max_gap_ms)
        self.min_gap_ms = check_positive("min_gap_ms", min_gap_ms, allow_zero=True)
        self._times: list[float] = []

    def reset(self) -> None:
        self._times.clear()

    def add(self, clap: Clap) -> ClapPattern | None:
        if self._times and (clap.t - self._times[-1]) * 1000.0 > self.max_gap_ms:
            self._times.clear()
        self._times.append(clap.t)
        if len(self._times) == self.count:
            times = tuple(self._times)
            self._times.clear()
            return ClapPattern(t=clap.t, count=self.count, times=times)
        return None

    def add_all(self, claps: Iterable[Clap]) -> list[ClapPattern]:
        out = []
        for c in claps:
            p = self.add(c)
            if p is not None:
                out.append(p)
        return out
