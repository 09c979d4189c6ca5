"""Activity level 0..100 of an audio block, as Flash's ``Microphone.activityLevel``.

Mapping (one place, used by every audio stage and the plot):

    level = clip((dBFS_rms + 66) / 0.6, 0, 100)        dBFS_rms = 10*log10(mean(x**2))

so -66 dBFS (and digital silence) reads 0, -6 dBFS reads 100, and one level step is
0.6 dB - the same as one gain step (``gain.py``: 50 = unity, 0.6 dB/step, 0 mutes),
so raising the gain by 10 raises an unclipped level by exactly 10. Full-scale white
noise (uniform in [-1, 1], -4.8 dBFS rms) and a full-scale sine (-3 dBFS) read 100;
a quiet room through a laptop microphone (-60..-50 dBFS) reads 10..27.

``level(samples)`` is the stateless function for one block; ``block_levels`` does a
whole signal at once (offline plots and evaluation). ``LevelMeter`` is the streaming
form: gain, optional exponential smoothing (``smoothing_ms``, 0 = off; applied to the
level, so it rises and falls at the same rate in dB), and the per-block mean square
(``energy``) that the activity and clap stages reuse instead of recomputing it.

Cost: one ``np.dot`` and one ``math.log10`` per block (~1.5 us for 512 samples).
Stereo blocks are averaged to mono unless ``channels=1`` was configured, in which
case they raise ``ConfigError``; integer samples are read as PCM (int16: / 32768, as the
recorder stores them), anything that is not an array of real numbers is a ``ConfigError``.
Blocks with NaN/Inf samples (or samples so large their mean square overflows) are reported (a logged
warning naming the first such block and the count, and ``skipped_blocks``) and skipped: the level
keeps its previous value and ``process`` returns ``None``. A recording stores NaN/Inf as 0 and
lists where they were (``audio.nonfinite``), so its replay skips the same blocks. Empty blocks are ignored.
"""
from __future__ import annotations

import logging
import math

import numpy as np

from sensekit.audio.gain import UNITY_GAIN, gain_to_factor
from sensekit.capture.base import AudioBlock
from sensekit.capture.wav import pcm_to_float
from sensekit.errors import ConfigError
from sensekit.validate import check_int_range, check_positive, check_range

log = logging.getLogger(__name__)

FLOOR_DB = -66.0        # dBFS that reads level 0
CEILING_DB = -6.0       # dBFS that reads level 100
DB_PER_LEVEL = (CEILING_DB - FLOOR_DB) / 100.0   # 0.6 dB, same as one gain step
_MIN_MS = 1e-20         # mean square below this is digital silence
_LEVEL_PER_DB = 1.0 / DB_PER_LEVEL
_log10 = math.log10


def db_to_level(db: float) -> float:
    """Level 0..100 for an rms dBFS value (clipped)."""
    v = (db - FLOOR_DB) / DB_PER_LEVEL
    return 0.0 if v < 0.0 else (100.0 if v > 100.0 else v)


def level_to_db(level: float) -> float:
    """rms dBFS at which the level reads ``level`` (0..100)."""
    lv = check_range("level", level, 0, 100)
    return FLOOR_DB + lv * DB_PER_LEVEL


def mean_square_to_level(ms: float) -> float:
    """Level of a block whose mean square (after gain) is ``ms``."""
    if ms <= _MIN_MS:
        return 0.0
    v = (10.0 * math.log10(ms) - FLOOR_DB) / DB_PER_LEVEL
    return 0.0 if v < 0.0 else (100.0 if v > 100.0 else v)


#: the most channels a block may have (the clap detector's ``channels`` limit too)
MAX_CHANNELS = 64


def mono(samples: np.ndarray, *, channels: int | None = None, index: int = 0) -> np.ndarray:
    """Float32 mono samples of a block: (n,) as is, (n, ch) averaged.

    ``channels=1`` means mono was configured: a multi-channel block raises ``ConfigError``.
    """
    x = samples
    if not isinstance(x, np.ndarray):
        raise ConfigError(f"audio block {index} must be a numpy array of samples, got {type(x).__name__}")
    if x.ndim == 1 and x.dtype == np.float32 and channels in (None, 1):
        return x
    if x.dtype.kind not in "fiu":
        raise ConfigError(f"audio block {index} must hold real numbers (float32, full scale 1.0), "
                          f"got dtype {x.dtype}")
    if x.dtype.kind in "iu":                 # integer PCM: to full scale 1.0, as the recorder reads it
        x = pcm_to_float(x)
    if x.ndim == 2:
        ch = _channels(x, channels, index)
        x = x[:, 0] if ch == 1 else x.mean(axis=1, dtype=np.float32)
    elif x.ndim != 1:
        raise ConfigError(f"audio block {index} must have shape (n,) or (n, channels), "
                          f"got {tuple(x.shape)}")
    if x.dtype != np.float32:
        x = x.astype(np.float32)
    return x


def _channels(x: np.ndarray, channels: int | None, index: int) -> int:
    """The channels of a 2-D block ``x`` (n, ch), checked against ``channels`` and ``MAX_CHANNELS``."""
    ch = int(x.shape[1])
    if ch == 0:
        raise ConfigError(f"audio block {index} has shape {tuple(x.shape)}: no channels")
    if ch > MAX_CHANNELS:                # (channels, n) given for (n, channels): every sample a channel
        raise ConfigError(f"audio block {index} has shape {tuple(x.shape)}: {ch} channels (at most "
                          f"{MAX_CHANNELS}); a block is (n, channels): transpose a (channels, n) array")
    if channels is not None and ch != channels:
        what = "mono (channels=1)" if channels == 1 else f"channels={channels}"
        raise ConfigError(f"audio block {index} has shape {tuple(x.shape)} ({ch} channels) "
                          f"but {what} was configured")
    return ch


def level(samples: np.ndarray, *, gain: float = UNITY_GAIN) -> float:
    """Activity level 0..100 of one block (NaN/Inf samples raise ``ConfigError``)."""
    x = mono(samples)
    if len(x) == 0:
        raise ConfigError("cannot compute the level of an empty block (0 samples)")
    ms = float(np.dot(x, x)) / len(x)
    if not math.isfinite(ms):
        bad = int(np.count_nonzero(~np.isfinite(x)))
        raise ConfigError(f"block has {bad} NaN/Inf samples; its level is undefined")
    return mean_square_to_level(ms * gain_to_factor(gain) ** 2)


def block_levels(samples: np.ndarray, rate: int, *, block: int = 512,
                 gain: float = UNITY_GAIN) -> np.ndarray:
    """Levels of consecutive ``block``-sample blocks of a whole signal (last partial block
    included); blocks with NaN/Inf read NaN here (callers decide how to show them)."""
    x = mono(samples)
    block = check_int_range("block", block, 1, 1 << 20)
    n = len(x)
    if n == 0:
        return np.zeros(0)
    nb = -(-n // block)
    pad = np.zeros(nb * block, np.float64)
    pad[:n] = x
    frames = pad.reshape(nb, block)
    counts = np.full(nb, block, np.float64)
    counts[-1] = n - (nb - 1) * block
    ms = np.einsum("ij,ij->i", frames, frames) / counts * gain_to_factor(gain) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        db = 10.0 * np.log10(np.maximum(ms, _MIN_MS))
    out: np.ndarray = np.clip((db - FLOOR_DB) / DB_PER_LEVEL, 0.0, 100.0)
    out[ms <= _MIN_MS] = 0.0
    out[~np.isfinite(ms)] = np.nan
    return out


class LevelMeter:
    """Streaming activity level with gain and optional smoothing.

    ``process(samples, t, rate)`` returns the level of the block (``None`` for a
    skipped block). After each call ``level`` is the (smoothed) level, ``raw_level`` the
    unsmoothed one, ``energy`` the block's mean square before gain.
    """

    def __init__(self, *, gain: float = UNITY_GAIN, smoothing_ms: float = 0.0,
                 channels: int | None = None) -> None:
        self.channels = None if channels is None else check_int_range("channels", channels, 1, 64)
        self.smoothing_ms = check_positive("smoothing_ms", smoothing_ms, allow_zero=True)
        self.set_gain(gain)
        self.level = 0.0
        self.raw_level = 0.0
        self.energy = 0.0
        self.skipped_blocks = 0
        self._said_nonfinite = False
        self._alpha_for: tuple[int, int] = (0, 0)
        self._alpha = 0.0
        self._started = False

    def set_gain(self, gain: float) -> None:
        """Change the gain (0..100, 50 = unity) from the next block on."""
        self.gain = check_range("gain", gain, 0, 100)
        self._gain2 = gain_to_factor(self.gain) ** 2

    def set_smoothing(self, smoothing_ms: float) -> None:
        """Change the smoothing time constant (0: off) from the next block on."""
        self.smoothing_ms = check_positive("smoothing_ms", smoothing_ms, allow_zero=True)
        self._alpha_for = (0, 0)                  # the factor is recomputed for the next block

    @property
    def gain_factor2(self) -> float:
        """Square of the linear gain factor (multiplies a mean square)."""
        return self._gain2

    def process(self, samples: np.ndarray, t: float = 0.0, rate: int = 48000, *,
                index: int = 0) -> float | None:
        x = samples
        if x.__class__ is not np.ndarray or x.ndim != 1 or x.dtype.char != "f":
            x = mono(x, channels=self.channels, index=index)
        n = len(x)
        if n == 0:
            return None
        ms = float(x.dot(x)) / n
        if ms - ms != 0.0:                          # NaN or Inf somewhere in the block
            self.skipped_blocks += 1
            bad = int(np.count_nonzero(~np.isfinite(x)))
            if bad:                                 # said once; a recording replays them as NaN too
                (log.debug if self._said_nonfinite else log.warning)(
                    "audio block %d at t=%.3f s has %d NaN/Inf samples of %d; skipped (so are later ones, "
                    "counted in skipped_blocks; a recording keeps where they were and its replay skips "
                    "the same blocks)", index, t, bad, n)
                self._said_nonfinite = True
            else:                                   # finite, but the mean square overflows
                log.warning("audio block %d at t=%.3f s has samples up to %.3g (full scale is 1.0): "
                            "too large to measure; skipped", index, t, float(np.abs(x).max()))
            return None
        self.energy = ms
        ms *= self._gain2
        if ms <= _MIN_MS:
            raw = 0.0
        else:
            raw = (10.0 * _log10(ms) - FLOOR_DB) * _LEVEL_PER_DB
            raw = 0.0 if raw < 0.0 else (100.0 if raw > 100.0 else raw)
        self.raw_level = raw
        if self.smoothing_ms > 0.0 and self._started:
            if self._alpha_for != (n, rate):
                self._alpha_for = (n, rate)
                self._alpha = math.exp(-1000.0 * n / rate / self.smoothing_ms)
            raw = raw + self._alpha * (self.level - raw)
        self.level = raw
        self._started = True
        return raw

    def feed(self, block: AudioBlock) -> float | None:
        """``process`` for an ``AudioBlock``."""
        return self.process(block.samples, block.t, block.rate, index=block.index)

    def reset(self) -> None:
        self.level = self.raw_level = self.energy = 0.0
        self._started = False
