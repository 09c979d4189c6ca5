"""Fundamental frequency (F0) with a voicing confidence: hum high or low to steer a game.

``yin(x, rate)`` is the stateless estimator: the YIN method (de Cheveigne & Kawahara,
2002) fully vectorized - the difference function for every lag comes from one correlation
(``np.correlate``, a single C loop) plus cumulative energies, then the cumulative-mean-normalised
difference d'(tau), the first dip below ``threshold`` (else the global minimum) and a
parabolic refinement. ``confidence = 1 - d'(tau)`` clipped to 0..1; an estimate with
d'(tau) above ``threshold`` is unvoiced (``hz = 0``).

``PitchTracker`` is the streaming form. While the block's activity level reaches
``min_level`` (default 25) it keeps references to the recent blocks and, every
``hop_ms`` (default 50 ms), analyses the last ~30 ms (two periods of ``fmin`` plus a
margin) after a cheap decimation to 6-8 kHz (box-filter sum of ``rate // 6000``
samples: fine for voice and humming, whose energy is below 2 kHz). The first estimate
of a sound therefore comes ~30 ms after it starts; between analyses the last estimate
is repeated, and quiet blocks report 0 Hz with confidence 0 (and drop the history).

Defaults: ``fmin=70`` Hz, ``fmax=900`` Hz (humming and most singing), ``threshold=0.2``.
Cost: ~30-40 us per analysis (one ``np.correlate`` of ~90 lags over ~90 samples plus a
dozen small array operations), ~0.5 us per quiet block, ~1 us per loud block between
analyses. Rates 8000..48000 Hz (``ConfigError`` otherwise). Fails soft on noise
(unvoiced, low confidence); octave errors are possible on very breathy hums; accuracy
is ~1 % up to 900 Hz (parabolic refinement at the decimated rate).
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from sensekit.arg_types import checked
from sensekit.audio.rates import check_rate
from sensekit.audio.level import level_to_db, mono
from sensekit.audio.numpy_calls import add_acc, correlate
from sensekit.capture.base import AudioBlock
from sensekit.errors import ConfigError
from sensekit.events import Pitch
from sensekit.settings import Tunable, setting


_LAGS: dict[int, np.ndarray] = {}
_correlate = correlate      # np.correlate's C function, without its Python wrapper


def _lags(tau_max: int) -> np.ndarray:
    v = _LAGS.get(tau_max)
    if v is None:
        v = _LAGS[tau_max] = np.arange(tau_max + 1, dtype=np.float64)
    return v


@dataclass(frozen=True, slots=True)
class PitchEstimate:
    hz: float          # 0 when unvoiced
    confidence: float  # 0..1


_UNVOICED = PitchEstimate(0.0, 0.0)


def yin(x: np.ndarray, rate: float, *, fmin: float = 70.0, fmax: float = 900.0,
        threshold: float = 0.2) -> PitchEstimate:
    """F0 of a mono frame by YIN. The frame must hold at least 2 periods of ``fmin``."""
    if not 0 < fmin < fmax:
        raise ConfigError(f"need 0 < fmin < fmax, got fmin={fmin!r}, fmax={fmax!r}")
    if fmax > rate / 4:
        raise ConfigError(f"`fmax` {fmax!r} Hz is too high for rate {rate} Hz (max {rate / 4:g})")
    x = np.asarray(x, dtype=np.float64)
    tau_max = int(math.ceil(rate / fmin))
    tau_min = max(2, int(rate / fmax))
    w = len(x) - tau_max
    if w < tau_max:
        raise ConfigError(f"frame of {len(x)} samples is too short for fmin={fmin:g} Hz at "
                          f"{rate} Hz (need {2 * tau_max})")
    return _yin(x, float(rate), tau_min, tau_max, threshold)


def _yin(x: np.ndarray, rate: float, tau_min: int, tau_max: int, threshold: float) -> PitchEstimate:
    """YIN on a float64 frame of at least ``2 tau_max`` samples, lags ``tau_min..tau_max - 1``
    (``yin`` checks the arguments; ``PitchTracker`` computes them once per configuration).

    Every value comes from the same floating-point operations in the same order as in the
    first version (``benchmarks/stage_identity.py`` checks the estimates to the bit); what
    changed is fewer temporaries and the three values of the refinement as Python floats."""
    w = len(x) - tau_max
    # (no mean removal needed: a DC offset cancels in x[j] - x[j+tau])
    # r(tau) = sum_{j<w} x[j] x[j+tau] for tau = 0..tau_max: one C-level correlation
    r: np.ndarray = _correlate(x, x[:w], 0)  # 0: "valid" (x is x[: w + tau_max])
    c = add_acc(x * x)                                   # (np.cumsum's own C loop)
    e0 = float(c[w - 1])                                 # sum x[j]^2, j < w
    d = c[w - 1:]                                        # sum x[j+tau]^2, j < w ...
    d[1:] -= c[:tau_max]
    d += e0
    r *= 2.0
    d -= r                                               # ... -> difference function d(tau)
    d[0] = 0.0
    cum = add_acc(d)
    cum[0] = 1.0
    np.maximum(cum, 1e-30, out=cum)
    d *= _lags(tau_max)
    d /= cum                                             # cumulative-mean-normalised d'(tau)
    dn = d
    seg = dn[tau_min: tau_max]
    below = seg < threshold
    i = int(below.argmax())
    if below[i]:
        # walk down to the bottom of this dip (a few steps at most)
        while i + 1 < len(seg) and seg[i + 1] < seg[i]:
            i += 1
    else:
        i = int(seg.argmin())
    tau = tau_min + i
    if 0 < tau < len(dn) - 1:
        three: list[float] = dn[tau - 1: tau + 2].tolist()
        a, val, cc = three
        den = a - 2.0 * val + cc
        shift = 0.5 * (a - cc) / den if den > 0 else 0.0
        shift = max(-0.5, min(0.5, shift))
    else:
        val = float(dn[tau])
        shift = 0.0
    conf = max(0.0, min(1.0, 1.0 - val))
    if val > threshold or e0 <= 1e-12:
        return PitchEstimate(0.0, conf if e0 > 1e-12 else 0.0)
    return PitchEstimate(float(rate / (tau + shift)), conf)


def _decimation(rate: int) -> int:
    """The box-filter factor ``PitchTracker`` decimates ``rate`` by (to 6-8 kHz)."""
    return max(1, rate // 6000)


def _check_fmax(fmax: float, rate: int) -> None:
    """``ConfigError`` unless ``fmax`` is at most a quarter of the decimated rate (YIN's limit)."""
    top = rate / _decimation(rate) / 4
    if fmax > top:
        raise ConfigError(f"`pitch.fmax` {fmax:g} Hz is too high for this source's rate {rate} Hz "
                          f"(at most {top:g} Hz)")


def _check_band(v: Mapping[str, Any]) -> None:
    if v["fmin"] >= v["fmax"]:
        raise ConfigError(f"`pitch.fmin` must be below `pitch.fmax`, got fmin={v['fmin']!r}, fmax={v['fmax']!r}")


class PitchTracker(Tunable, section="pitch",
                   title="pitch (F0) with a voicing confidence, YIN",
                   rule=_check_band):
    """Streaming per-block F0: ``process(samples, t, rate, level=...) -> Pitch``."""

    fmin = setting(70.0, "lowest pitch looked for", unit="Hz", lo=20, hi=2000)
    fmax = setting(900.0, "highest pitch looked for (humming and most singing)", unit="Hz", lo=40, hi=4000)
    threshold = setting(0.2, "YIN dip threshold: higher accepts breathier sounds as voiced",
                        lo=0.01, hi=1)
    hop_ms = setting(50.0, "time between two analyses", unit="ms", lo=0, hi=10_000)
    min_level = setting(25.0, "blocks quieter than this activity level are unvoiced", unit="level",
                        lo=0, hi=100)

    @checked
    def __init__(self, *, channels: int | None = None, **settings: Any) -> None:
        self.init_settings(settings)
        self.channels = channels
        self.rate: int | None = None
        self.last = PitchEstimate(0.0, 0.0)
        self.analyses = 0
        self._blocks: deque[np.ndarray] = deque()
        self._held = 0
        self._since = math.inf
        self._min_ms = 10.0 ** (level_to_db(self.min_level) / 10.0)

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        self._min_ms = 10.0 ** (level_to_db(self.min_level) / 10.0)
        if changed.keys() & {"fmin", "fmax"}:
            self.rate = None                                # reconfigure on the next block

    def check_live(self, values: Mapping[str, Any]) -> None:
        """Once the rate is known, ``fmax`` must fit it (OSC or the panel would otherwise stop
        the run at the next block)."""
        if self.rate is not None:
            _check_fmax(values["fmax"], self.rate)

    def _configure(self, rate: int) -> None:
        self.rate = check_rate(rate, "pitch tracker")
        self._q = _decimation(rate)
        self._dec_rate = rate / self._q
        self._ones = np.ones(self._q, np.float32)
        _check_fmax(self.fmax, rate)
        tau_max = int(math.ceil(self._dec_rate / self.fmin))
        self._taus = (max(2, int(self._dec_rate / self.fmax)), tau_max)   # as yin() computes them
        self._need = (2 * tau_max + 8) * self._q           # raw samples per analysis
        self._blocks.clear()
        self._held = 0
        self._since = math.inf
        self._ms_per_sample = 1000.0 / rate

    def process(self, samples: np.ndarray, t: float, rate: int, *, index: int = 0,
                energy: float | None = None) -> PitchEstimate:
        """Feed one block; returns the current estimate (``analyses`` counts new ones).

        ``energy`` is the block's mean square after gain, if the caller already has it.
        """
        if self._pending:
            self.apply_pending()
        if rate != self.rate:
            self._configure(rate)
        x = samples
        if x.ndim != 1 or x.dtype.char != "f":
            x = mono(x, channels=self.channels, index=index)
        n = len(x)
        if n == 0:
            return self.last
        if energy is None:
            energy = float(x.dot(x)) / n
        if not energy >= self._min_ms:                      # quiet, or NaN: no history kept
            self._forget()
            self.last = _UNVOICED
            return _UNVOICED
        # keep x, and only as many older blocks as one analysis needs
        blocks, need = self._blocks, self._need
        blocks.append(x)
        held = self._held + n
        while held - len(blocks[0]) >= need:
            held -= len(blocks.popleft())
        self._held = held
        self._since = since = self._since + n * self._ms_per_sample
        if since >= self.hop_ms and held >= need:
            self._analyse()
        return self.last

    def _forget(self) -> None:
        if self._held:
            self._blocks.clear()
            self._held = 0
            self._since = math.inf

    def _analyse(self) -> None:
        """YIN on the newest ``_need`` samples (box-filtered and decimated by ``_q``)."""
        self._since = 0.0
        blocks = self._blocks
        buf = np.concatenate(blocks) if len(blocks) > 1 else blocks[0]
        frame = buf[len(buf) - self._need:]
        if self._q > 1:
            frame = frame.reshape(-1, self._q) @ self._ones   # box filter + decimate (BLAS)
        # (NaN/Inf never get here: such a block's energy fails the level gate above; the
        # settings were checked by _configure: yin()'s own checks would say the same)
        self.last = _yin(frame.astype(np.float64), self._dec_rate, *self._taus, self.threshold)
        self.analyses += 1

    def event(self, t: float) -> Pitch:
        """The current estimate as a ``Pitch`` event at time ``t``."""
        return Pitch(t=t, hz=self.last.hz, confidence=self.last.confidence)

    def reset(self) -> None:
        """Forget the buffered history and the last estimate."""
        self._blocks.clear()
        self._held = 0
        self._since = math.inf
        self.last = PitchEstimate(0.0, 0.0)

    def feed(self, block: AudioBlock) -> Pitch:
        """Process an ``AudioBlock``; returns the estimate as a ``Pitch`` event."""
        self.process(block.samples, block.t, block.rate, index=block.index)
        return self.event(block.t)
