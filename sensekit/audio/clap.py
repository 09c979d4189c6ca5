"""Clap detection: one event per hand clap, told apart from other sounds by what a clap *is*.

A clap is a burst of noise that jumps tens of dB within a few milliseconds, has its
energy spread over ~0.5-4 kHz with no pitch or ring, and is over within ~10 ms. The
detector finds bursts with a cheap test on a fixed 1 ms grid, then judges each burst on
the signal around its peak sample only: 16 physical features (``clap_features.py``:
onset, shortness, spectrum) scored by boosted trees (``clap_model.py``) that
``benchmarks/train_clap.py`` fits on the developer clips and augmented copies, with the
decision threshold chosen leave-one-source-out.

How it streams, and why the result does not depend on the blocks or the start:

1. Samples go into one buffer indexed by their position in the stream; before the
   first sample the stream counts as digital silence (prepending zeros changes nothing,
   and a clap in the first milliseconds is found: nothing is learned first).
2. Complete 1 ms frames, on a grid anchored at sample 0, are tested 28 at a time:
   frame ``k`` is a candidate when the power of its clap band (``clap_features.clap_band``:
   ~0.5-4 kHz, so steady noise above or below the claps' band does not hide them) is >= 6 dB over
   the mean of frames k-30..k-7, is higher than frame k-1's, and its own power reaches
   ``min_level``. A chunk whose blocks are too quiet to hold such a frame is skipped
   after one comparison (the level stage's block energies).
3. A candidate's peak ``p`` is the loudest sample of the 1 ms envelope in the 12 ms
   from 2 ms before it; it must be the loudest within +-12 ms, rise >= ``min_rise_db``
   (8 dB, 2 dB over the grid's 6, so the grid phase does not decide) over 35..10 ms
   before, reach ``min_level``, and not stay within 1 dB of itself 3..12 ms later (``clap_peaks.py``).
   Every measurement is anchored at ``p``, to the sample. Regions are searched together once the first
   one's peak could be due (``latency_ms`` after its start), on one cumulative ``d**2`` (``BandEnergy``).
4. ``p`` is judged once 31.5 ms after it have arrived (``latency_ms``, 32.5 ms, plus
   the block that brings them): a clap needs ``score >= threshold`` (the shipped
   ``clap_model.THRESHOLD``). Claps closer than ``min_gap_ms`` (75 ms, 3/4 of the
   fastest clapping people do) are one clap. A burst more than ``below_claps_db`` (30 dB)
   under the loudest clap of the last ``RECENT_CLAPS_S`` (10 s) is not one of them: the
   claps of one person in one room vary by 20 dB at most (the soft claps of the developer
   clips lie 11-20 dB under the loud ones), while a faint plosive of distant speech between
   loud claps scores like a clap once the room's floor is taken off it.
5. At the end of a stream ``finish()`` decides the bursts still owed, the wait off, with silence after the
   last sample (``clap_end``: those of its last 32 ms too) and resets; the runner calls it (``AudioStage``).

Settings: the ``clap`` group of the settings table (``ClapDetector.SETTINGS``; so ``sensekit settings``,
``--set clap.threshold=2``, profiles, OSC and Shift+S know them), declared and explained in ``clap_settings.py``.
A change applies at the next block. Not in the table: ``gain`` (the audio stage's), ``model`` (another tree model).
``t`` of a ``Clap`` is its onset (first sample within 10 dB of the peak); ``strength`` is the peak's level / 100.

Cost (48 kHz): ~1.4 us per block, plus ~12 us per 28 ms of sound above ``min_level`` (the
grid), ~40 us per batch of candidates searched for their peak and ~150 us per burst judged
(a few per second of busy sound); ~4 us per 512-sample block on ``benchmarks/audio.py``'s
signal. The sample, frame-power and cumulative-sum buffers are reused (grown when needed).
The first detector built with ``noise_route`` on builds the expert's trees (~25 ms, once per
process), so no block and no clap pays for them.

Failure modes: ``ConfigError`` for a rate outside 8000..48000 Hz, a rate change mid-stream, a stereo block
with ``channels=1``, or a bad setting (each names the value). A block with NaN/Inf samples is logged, counted
in ``skipped_blocks`` and skipped; the stream restarts after it (as if from silence). A block whose ``t`` starts
after a gap (blocks dropped, a device reopened) is fed at its ``t``, so claps keep their times (``clap_gap``;
``gaps``, ``gap_samples``). A burst the stream's end (``finish()``, a NaN block) cuts too close to judge
(its 20 dB fall not in, its peak in the last 3 ms, or a close call) is no clap and is counted in
``cut_at_end``. Known limits: docs/claps.md (per source; the noise curve; what still fires).

``ClapPatternTracker`` (``clap_pattern.py``, re-exported here) turns claps into ``ClapPattern``
events: ``count`` claps, each within ``max_gap_ms`` of the previous one (a double clap is ``count=2``).
The room rule and the recent-claps rule are pure functions in ``clap_rules.py``."""
from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from sensekit.arg_types import checked
from sensekit.audio.clap_end import judge_end
from sensekit.audio.clap_energy import BandEnergy
from sensekit.audio.clap_gap import GAP_FRACTION, bridge, enter
from sensekit.audio.clap_features import (FEATURES, POST_MS, BurstFeatures, BurstMeter, Model, clap_band, clap_score,
                                           tree_model)
from sensekit.audio.clap_pattern import ClapPatternTracker
from sensekit.audio.clap_peaks import find_peaks
from sensekit.audio.clap_wait import SHIPPED, BEFORE_S, WaitModel, close_call_score, is_close, wait_samples, warm
from sensekit.audio.clap_rules import room_index as _room_index, room_side, under_recent_claps
from sensekit.audio.clap_settings import SCORE_RANGE, ClapSettings
from sensekit.audio.clap_venue import VenueModel, check_venue_model
from sensekit.audio.gain import UNITY_GAIN, gain_to_factor
from sensekit.audio.level import db_to_level, level_to_db, mono
from sensekit.audio.numpy_calls import correlate, count_nonzero, einsum
from sensekit.audio.rates import MAX_RATE, MIN_RATE, check_rate
from sensekit.capture.base import AudioBlock
from sensekit.errors import ConfigError
from sensekit.events import Clap
from sensekit.settings import Tunable
from sensekit.validate import check_int_range, check_range

if TYPE_CHECKING:
    from sensekit.audio.clap_floor import FloorRoute

__all__ = ["FEATURES", "MAX_RATE", "MIN_RATE", "SCORE_RANGE", "BurstFeatures", "ClapDetector", "ClapPatternTracker",
           "check_rate", "room_side"]

log = logging.getLogger(__name__)

_NO_CLAPS: tuple[Clap, ...] = ()   # shared empty result (no allocation per quiet block)

_TINY = 1e-20
_GRID_RISE = 10.0 ** 0.6          # 6 dB: the grid test's rise over the frames before
_BASE_FRAMES = (30, 7)            # the grid test's reference: frames k-30 .. k-7
_REGION_MS = (2.0, 12.0)          # a candidate's peak is searched from 2 ms before, over 12 ms
_CHUNK_FRAMES = 28                # grid frames tested together (28 ms: found before the look-ahead ends)
_LOCAL_MS = 12.0                  # the peak is the loudest sample within +-12 ms
RECENT_CLAPS_S = 10.0             # below_claps_db compares with the claps of this last stretch


class ClapDetector(Tunable, ClapSettings, section="clap", rule=check_venue_model,
                   title="clap events: bursts judged by boosted trees (sensekit/audio/clap.py)"):
    """Streaming hand-clap detector: ``feed(block)`` or ``process(samples, t, rate)``.

    The module docstring says how it decides and what each setting does.
    """

    @checked
    def __init__(
        self,
        *,
        rate: int | None = None,
        channels: int | None = None,
        gain: float = UNITY_GAIN,
        model: Model | None = None,
        wait_model: WaitModel | None = None,
        **settings: Any,
    ) -> None:
        given_rate = check_rate(rate, "clap detector") if rate is not None else None
        self.rate: int | None = None       # set up by reset(), after the settings it reads
        self.channels = None if channels is None else check_int_range("channels", channels, 1, 64)
        self.gain = check_range("gain", gain, 0, 100)
        self._gain2 = gain_to_factor(self.gain) ** 2
        self.init_settings({k: v for k, v in settings.items() if v is not None})
        self._levels_changed()
        self._route: FloorRoute | None = None   # made by _configure when noise_route is on
        self._load_expert()                # its trees now, not at the first block
        self.model = model
        tree_model(model)                  # the trees' tables now, not at the first burst
        #: the close-call wait's constants (fitted to the shipped trees: none for another ``model``)
        self.wait_model = wait_model if wait_model is not None or model is not None else SHIPPED
        self._wait_on()
        #: when True, the features of every judged burst are appended to ``features``
        self.keep_features = False
        self.features: list[BurstFeatures] = []
        self.skipped_blocks = 0
        self.gaps = self.gap_samples = 0           # gaps in the stream bridged (clap_gap)
        self.cut_at_end = 0     # bursts the stream's end cut too close to judge (clap_end): not claps
        self.rate = given_rate
        self.reset()

    # -- settings ------------------------------------------------------------
    def set_gain(self, gain: float) -> None:
        """Change the gain (0..100, 50 = unity) from the next block on."""
        self.gain = check_range("gain", gain, 0, 100)
        self._gain2 = gain_to_factor(self.gain) ** 2

    def set_min_level(self, min_level: float) -> None:
        """Change the level (0..100) a clap's 1 ms peak must reach, from now on."""
        self.apply_now(min_level=min_level)

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        self._levels_changed()
        if "close_call_wait" in changed:
            self._wait_on()
        if self.rate is not None:
            self._gap = round(self.rate * self.min_gap_ms / 1000.0)
            if "noise_route" in changed or "close_call_wait" in changed:   # (mid-stream: judged
                self._route_changed()                                     # once the history is there)
        elif "noise_route" in changed:
            self._load_expert()

    @property
    def latency_ms(self) -> float:
        """How long after a clap's peak it is decided (plus the block that completes it); a close
        call (``close_call_wait``) comes out ~130 ms after its peak instead."""
        if self.rate is None:
            return (max(_LOCAL_MS, POST_MS) + 2.5)            # before the first block: nominal
        return 1000.0 * self._ahead / self.rate

    # -- state ---------------------------------------------------------------
    def reset(self) -> None:
        """Forget the stream: buffer, candidates, last clap, start time."""
        self._t0: float | None = None
        self._buf = np.zeros(0, np.float32)
        self._b0 = 0                       # stream index of _buf[0] (negative: virtual zeros)
        self._room = 0                     # stream index just past the buffer
        self._end = 0                      # stream index after the last sample
        self._fnext = 0                    # first grid frame not yet tested
        self._regions: list[int] = []      # candidate search starts waiting for their 12 ms
        self._peaks: list[tuple[int, int]] = []   # (peak, onset) waiting for the look-ahead
        self._due = 1 << 62                # stream index at which _judge_ready has work
        self._last_found = -(1 << 62)      # last region peak found (peaks only move forward)
        self._last_clap = -(1 << 62)       # peak of the last clap reported
        self._recent: deque[tuple[int, float]] = deque()   # (peak, peak_db) of the recent claps
        self._look: tuple[int, tuple[float, ...], bool, float, bool] | None = None   # the held head's
        self._ended = False                # finish(): what is owed is decided with the wait off
        if self.rate is not None:
            self._configure(self.rate)

    def _configure(self, rate: int) -> None:
        self.rate = rate
        self._meter = m = BurstMeter(rate)
        self._hop = m.hop
        self._region = (m.ms(_REGION_MS[0]), m.ms(_REGION_MS[1]))
        self._local = m.ms(_LOCAL_MS)
        self._ahead = max(self._local, m.post) + m.hop + 1
        self._rise_far, self._rise_near = m.ms(35.0), m.ms(10.0)   # the rise window (features)
        self._d3 = m.ms(3.0)
        self._width, self._band_pre = m.width, m.band_pre   # clap_band: L, history
        self._energy = BandEnergy(rate, m.width)          # the peak search's cumulative d**2
        self._route_changed()
        self._gap = round(rate * self.min_gap_ms / 1000.0)
        nb = _BASE_FRAMES[0] - _BASE_FRAMES[1] + 1
        self._ratio_ones = np.full(nb, _GRID_RISE / nb)   # R times the mean, by convolution
        self._levels_changed()

    def _load_expert(self) -> None:
        """With ``noise_route`` on, the expert's trees (``clap_floor.expert``, ~25 ms once per
        process) built now: when the detector is made or told to take the route, not on a block."""
        if self.noise_route:
            from sensekit.audio.clap_floor import expert

            expert()

    def _floor_route(self, rate: int) -> FloorRoute:
        """The floor route of a detector with ``noise_route`` on: ``clap_floor.FloorRoute`` (an
        evaluation's subclass of the detector may make another: ``evaluation.audio.clap_variants``)."""
        from sensekit.audio.clap_floor import FloorRoute

        return FloorRoute(rate)

    def _bridge(self, gap: int, x: np.ndarray, t: float, rate: int, index: int) -> list[Clap]:
        """The block at ``t`` after ``gap`` missing samples: ``clap_gap.bridge`` (an evaluation's
        subclass may bridge another way: ``evaluation.audio.clap_variants``)."""
        return bridge(self, gap, x, t, rate, index)

    def _route_changed(self) -> None:
        """The floor route (``noise_route``) and the history it needs, made or dropped."""
        m = self._meter
        if self.noise_route:     # the expert's trees are imported only by a venue that uses them
            self._route = self._floor_route(m.rate)
        else:
            self._route = None
        # samples kept before a region start / peak: the features', the grid's, _find_peaks'
        # (and the floor route's 0.3 s when it is on)
        self._back = max(m.pre, self._local + self._rise_far + m.hop, (_BASE_FRAMES[0] + 1) * m.hop,
                         0 if self._route is None else self._route.pre,
                         round(BEFORE_S * m.rate) + 1 if self._cw else 0) + m.hop + m.band_pre
        self._wait_n = self._wait_samples(m.rate) if self._cw else 0

    def _wait_samples(self, rate: int) -> int:
        """How long after its peak a close call waits for its ring and log-mel (``clap_wait``)."""
        return wait_samples(rate)

    @property
    def _hold_n(self) -> int:
        """The close-call wait in samples now: 0 with the wait off, or once the stream has ended."""
        return 0 if self._ended else self._wait_n

    def _start(self, t: float) -> None:
        self._t0 = t
        keep = self._back + self._region[0] + (_CHUNK_FRAMES + 2) * self._hop
        self._buf = np.zeros(max(self._meter.rate // 2, 4 * keep), np.float32)   # shifted every ~0.4 s
        self._b0 = -keep                   # virtual silence before the first sample
        self._room = self._b0 + len(self._buf)   # stream index just past the buffer
        self._end = 0
        self._fnext = 0
        self._grid_due = _CHUNK_FRAMES * self._hop       # stream index that completes a chunk
        self._chunk_ss = 0.0                              # sum of squares of the chunk's blocks
        self._fp = np.zeros(512, np.float64)            # grid frame powers of the difference
        self._fp0 = -_BASE_FRAMES[0] - 1                # frame index of _fp[0]
        self._fvalid = 1 << 62                          # first frame with a cached power
        self._pbuf = np.empty(4096, np.float64)         # _find_peaks' envelope
        self._energy.reset()

    # -- streaming -------------------------------------------------------------
    def feed(self, block: AudioBlock) -> Sequence[Clap]:
        """Feed an ``AudioBlock``."""
        return self.process(block.samples, block.t, block.rate, index=block.index)

    def process(self, samples: np.ndarray, t: float, rate: int, *, index: int = 0,
                energy: float | None = None) -> Sequence[Clap]:
        """Feed one block (float32, (n,) or (n, ch)); returns the claps it completes.

        ``energy`` is the block's mean square before gain, when the caller already has
        it (the level stage computes it once per block). NaN/Inf blocks are skipped.
        """
        if self._pending or rate != self.rate:
            self._settle(rate, index)
        x = samples
        if x.ndim != 1 or x.dtype.char != "f":
            x = mono(x, channels=self.channels, index=index)
        n = len(x)
        if n == 0:
            return _NO_CLAPS
        if energy is None:
            energy = float(np.dot(x, x)) / n
        if not math.isfinite(energy):
            return self._skip(index, t)
        if ((self._t0 is None or (t - self._t0) * rate - self._end >= GAP_FRACTION * n - 1)
                and (gap := enter(self, t, rate, n))):   # the stream starts, or blocks are missing before it
            return self._bridge(gap, x, t, rate, index)
        end = self._end
        if end + n > self._room:
            self._make_room(n)
        b0 = self._b0
        self._buf[end - b0: end - b0 + n] = x
        self._end = end = end + n
        ss = energy * n
        # -- grid test, every _CHUNK_FRAMES complete frames (the judge waits longer anyway).
        # _chunk_ss holds the blocks that overlap the chunk: at least the chunk's own energy
        if end < self._grid_due:
            self._chunk_ss += ss
        else:
            self._chunk_done(end, ss)
        if end >= self._due:                      # a search or a judgement is due
            return self._judge_ready()
        return _NO_CLAPS

    def finish(self) -> list[Clap]:
        """The end of the stream: the claps still owed, at their own times, then ``reset()`` (a second call
        owes nothing). Rule (issue 19, chosen before measuring): a held close call whose look-ahead is in,
        and each burst behind it, is decided as with ``close_call_wait`` off (trees' or route's score vs
        ``threshold``, same gates; silence after the end completes what is owed: ``clap_end``)."""
        if self._t0 is None:
            return []
        out = judge_end(self)                  # the wait off for what is owed (reset() clears it)
        self.reset()
        return out

    def _settle(self, rate: int, index: int) -> None:
        """Before a block: apply settings changed since the last one, then take a new rate
        (configured for before the stream starts, refused after)."""
        if self._pending:
            self.apply_pending()
        if rate == self.rate:
            return
        if self._t0 is not None:
            raise ConfigError(f"sample rate changed from {self.rate} to {rate} Hz at audio "
                              f"block {index}; call reset() first")
        self._configure(check_rate(rate, "clap detector"))

    def _skip(self, index: int, t: float) -> Sequence[Clap]:
        """A block with NaN/Inf samples: counted, logged, and the stream restarted."""
        self.skipped_blocks += 1
        log.warning("clap detector: audio block %d at t=%.3f s has NaN/Inf samples; skipped "
                    "(the stream restarts at the next block)", index, t)
        out = judge_end(self) if self._t0 is not None else []   # the stream before it ends: what it owes
        self.reset()
        return out

    def _chunk_done(self, end: int, ss: float) -> None:
        """The stream reached ``_grid_due`` (``ss``: this block's sum of squares): frame powers
        of the finished chunk, computed only when some frame may reach min_level."""
        hop = self._hop
        k0, k1 = self._fnext, end // hop
        if (self._chunk_ss + ss) * self._gain2 >= self._min_fe:
            self._grid(k0, k1)                      # some frame may reach min_level
        else:
            self._fvalid = k1                         # frame powers before k1 unknown
        self._fnext = k1
        self._grid_due = (k1 + _CHUNK_FRAMES) * hop
        self._chunk_ss = ss if k1 * hop < end else 0.0   # this block also holds the next

    def _levels_changed(self) -> None:
        self._room_j = _room_index(self.room_feature)
        self._venue = VenueModel.from_numbers(self.venue_model)
        self._min_peak_db = level_to_db(self.min_level)
        self._min_peak = 10.0 ** (self._min_peak_db / 10.0)
        # a little below the exact limits: the cheap checks must never reject more
        self._min_rise = 10.0 ** ((self.min_rise_db - 0.01) / 10.0)
        if self.rate is not None:
            self._min_fe = self._min_peak * self._hop

    def _make_room(self, n: int) -> None:
        """Drop samples nothing needs any more (or grow) so ``n`` more fit."""
        used = self._end - self._b0
        keep_from = min(self._fnext * self._hop, self._end) - self._back - self._region[0] - 2 * self._hop
        for s in self._regions[:1] + [p for p, _ in self._peaks[:1]]:
            keep_from = min(keep_from, s - self._back)
        drop = max(0, keep_from - self._b0)
        kept = used - drop
        if kept + n > len(self._buf):
            new = np.zeros(2 * (kept + n), np.float32)
            new[:kept] = self._buf[drop:used]
            self._buf = new
        else:
            self._buf[:kept] = self._buf[drop:used]
        self._b0 += drop
        self._room = self._b0 + len(self._buf)

    def _grid(self, k0: int, k1: int) -> None:
        """Test grid frames k0..k1-1; queue a search region for each candidate.

        Frame powers of the difference are cached while consecutive chunks are tested
        (a skipped chunk invalidates them; they are recomputed from the buffer).
        """
        hop = self._hop
        far, near = _BASE_FRAMES
        need = k0 - far - 1                              # k-31: reference and rise check
        lo = k0 if self._fvalid <= need else need
        if k1 - self._fp0 > len(self._fp):               # make room: frames from k-31 on
            hist = self._fp[need - self._fp0: k0 - self._fp0].copy() if lo == k0 else None
            if 2 * (k1 - need) > len(self._fp):
                self._fp = np.zeros(2 * (k1 - need), np.float64)
            if hist is not None:
                self._fp[: len(hist)] = hist
            self._fp0 = need
        b0 = self._b0
        seg = self._buf[lo * hop - self._band_pre - b0: k1 * hop - b0]
        d = clap_band(seg, self._width).reshape(-1, hop)
        fp = self._fp
        o = self._fp0
        fp[lo - o: k1 - o] = einsum("ij,ij->i", d, d)
        if lo == need:
            self._fvalid = need
        new = fp[k0 - o: k1 - o]
        # R times the mean of frames k-30 .. k-7, for k = k0 .. k1-1 (the kernel is symmetric:
        # np.correlate's C function is np.convolve without its Python wrappers)
        hit = new >= correlate(fp[k0 - far - o: k1 - near - o], self._ratio_ones, 0)  # 0: "valid"
        if not count_nonzero(hit):                      # the usual case: no 6 dB rise
            return
        # the frame rises over the one before and reaches min_level (one pass each over the
        # chunk; the rows' sums as before, so the same floats)
        hit &= new > fp[k0 - 1 - o: k1 - 1 - o]
        xs = self._buf[k0 * hop - b0: k1 * hop - b0].reshape(-1, hop)
        hit &= einsum("ij,ij->i", xs, xs) * self._gain2 >= self._min_fe
        ks = hit.nonzero()[0].tolist()
        if ks:
            s0 = k0 * hop - self._region[0]
            self._regions.extend([s0 + j * hop for j in ks])
            self._due = min(self._due, self._regions[0] + self._ahead)

    def _judge_ready(self) -> list[Clap]:
        out: list[Clap] = []
        end = self._end
        regions = self._regions
        ready = 0
        if regions and regions[0] + self._ahead <= end:   # a peak of the first may be due now
            need = self._region[1] + self._local + self._hop + 1
            while ready < len(regions) and regions[ready] + need <= end:
                ready += 1
        if ready:
            self._find_peaks(regions[:ready])
            del regions[:ready]
        peaks = self._peaks
        while peaks and peaks[0][0] + self._ahead <= end:
            p, onset = peaks[0]
            if self._hold_n and p + self._hold_n > end and self._holds(p):
                break                                     # a close call: its ring is not in yet
            peaks.pop(0)
            clap = self._judge(p, onset)
            if clap is not None:
                out.append(clap)
        head = peaks[0][0] + self._ahead if peaks else 1 << 62
        if self._hold_n and peaks and head <= end:          # held: due when its ring is in
            head = peaks[0][0] + self._hold_n
        self._due = min(regions[0] + self._ahead if regions else 1 << 62, head)
        return out

    def _wait_on(self) -> None:
        """The close-call wait on (``close_call_wait`` with a ``wait_model``) or off."""
        self._cw = bool(self.close_call_wait and self.wait_model is not None)
        if self.wait_model is not None and self._cw:
            warm(self.wait_model)

    def _holds(self, p: int) -> bool:
        """Whether the head peak ``p`` is a close call (its first look is kept for ``_judge``)."""
        if self._look is None or self._look[0] != p:
            self._look = (p, *self._first_look(p, p - self._last_clap >= self._gap))
        return self._look[4]

    def _find_peaks(self, starts: list[int]) -> None:
        """The peaks of the regions ``starts`` (``clap_peaks.find_peaks``; a method, so that
        ``evaluation.audio.clap_losses`` can say why it drops one)."""
        find_peaks(self, starts)

    def is_room(self, vals: Sequence[float]) -> bool:
        """Whether the room rule or the venue model (learned by ``calibrate --claps``) calls
        the burst with measurements ``vals`` (``(peak_db,) + FEATURES``) the room's."""
        if self._venue is not None and self._venue.is_room(vals[1:]):
            return True
        v = vals[self._room_j] if self._room_j else math.nan
        return math.isfinite(v) and room_side(v, self.room_limit, self.room_above)

    def _tree_score(self, vals: tuple[float, ...]) -> float:
        """The trees' log-odds of a burst's values (``clap_score``; ``benchmarks/clap_cost.py``'s
        subclass counts and replays it)."""
        return clap_score(np.asarray(vals[1:]), self.model)

    def _first_look(self, p: int, gap_ok: bool) -> tuple[tuple[float, ...], bool, float, bool]:
        """The burst's values, whether it passes the level and rise checks, its score (the route's
        expert's or the trees'), and whether it is a close call (trees' score within the margin)."""
        vals = self._meter.measure(self._buf, p - self._b0, gain2=self._gain2)
        ok = vals[0] >= self._min_peak_db and vals[1] >= self.min_rise_db
        score = -99.0                      # the route first: the trees only for bursts it keeps
        if ok or self.keep_features:
            expert = None if self._route is None else self._route.score(self._buf, p - self._b0, vals)
            if expert is not None:
                return vals, ok, expert, False
            score = self._tree_score(vals)
        return vals, ok, score, bool(self._hold_n and ok and gap_ok and is_close(score, self.wait_model or SHIPPED))

    def _judge(self, p: int, onset: int) -> Clap | None:
        gap_ok = p - self._last_clap >= self._gap
        look, self._look = self._look, None
        if not (gap_ok or self.keep_features):
            return None
        vals, ok, score, close = look[1:] if look is not None and look[0] == p else self._first_look(p, gap_ok)
        if close and self._hold_n:         # its ring and log-mel are in (clap_wait; not at finish())
            score = self._close_score(p, vals, score)
        peak_db = vals[0]
        t0, rate = self._t0 or 0.0, self._meter.rate
        t_onset = t0 + onset / rate
        if self.keep_features:
            self.features.append(BurstFeatures(*(t_onset, t0 + p / rate, *vals, score)))
        if not (ok and gap_ok) or score < self.threshold or self.is_room(vals):
            return None
        if under_recent_claps(self._recent, p, peak_db, RECENT_CLAPS_S * rate, self.below_claps_db):
            return None                    # below_claps_db under the recent claps (clap_rules)
        self._last_clap = p
        self._recent.append((p, peak_db))
        return Clap(t=t_onset, strength=min(1.0, db_to_level(peak_db) / 100.0))

    def _close_score(self, p: int, vals: tuple[float, ...], t: float) -> float:
        """The close call at ``p``'s score (``clap_wait.close_call_score``; ``t``: the trees')."""
        return close_call_score(self._buf[: self._end - self._b0], p - self._b0, self._meter.rate, vals, t,
                                self.wait_model or SHIPPED)
