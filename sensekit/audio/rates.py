"""The sample rates the audio detectors take (8000..48000 Hz), checked once for all of them."""
from __future__ import annotations

import numpy as np

from sensekit.errors import ConfigError

__all__ = ["MAX_RATE", "MIN_RATE", "check_rate"]

MIN_RATE = 8000
MAX_RATE = 48000


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
