"""Microphone gain, 0..100 as in Flash, and its mapping to a linear factor.

Gain 50 is unity (0 dB). Each step is 0.6 dB, so 100 is +30 dB (x31.6) and 1 is
-29.4 dB; gain 0 mutes, as Flash's does. Sources deliver raw samples and carry
their gain setting (it is stored in recordings); the level stage applies it, the
way Flash amplifies before it computes ``activityLevel``.
"""
from __future__ import annotations

from typing import Any

from sensekit.capture.base import UNITY_GAIN as UNITY_GAIN    # a source's gain: capture's
from sensekit.validate import check_range

DB_PER_STEP = 0.6


def source_gain(source: Any) -> float:
    """The gain an opened source carries (a microphone's, a recording's stored one), unity for a
    source without one (or with ``None``); 0 stays 0 (muted). What a run starts from before its
    settings (``audio.gain``) apply."""
    gain = getattr(source, "gain", None)
    return UNITY_GAIN if gain is None else float(gain)


def gain_to_db(gain: float) -> float:
    """dB of amplification for a 0..100 gain; ``-inf`` for 0 (mute)."""
    g = check_range("gain", gain, 0, 100)
    return float("-inf") if g == 0 else (g - UNITY_GAIN) * DB_PER_STEP


def gain_to_factor(gain: float) -> float:
    """Linear amplitude factor for a 0..100 gain (0 for gain 0)."""
    g = check_range("gain", gain, 0, 100)
    return 0.0 if g == 0 else 10.0 ** ((g - UNITY_GAIN) * DB_PER_STEP / 20.0)
