"""The evaluation's clap windows (``sensekit.evaluation.audio.clap_window``): a slice padded with
zeros past either end of the clip, milliseconds in samples, and the one check of a peak."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.audio.clap_window import check_peak, ms_samples, padded, window_in


def test_padded_is_the_slice_with_zeros_outside_the_clip() -> None:
    x = np.arange(1, 11, dtype=np.float32)
    assert padded(x, 2, 5).tolist() == [3.0, 4.0, 5.0]
    assert padded(x, -3, 2).tolist() == [0.0, 0.0, 0.0, 1.0, 2.0]
    assert padded(x, 8, 13).tolist() == [9.0, 10.0, 0.0, 0.0, 0.0]
    assert padded(x, -2, 12).tolist() == [0.0, 0.0, *range(1, 11), 0.0, 0.0]
    assert padded(x, 12, 15).tolist() == [0.0, 0.0, 0.0]             # wholly past the end
    assert padded(x, 2, 5).dtype == np.float64


def test_ms_samples_rounds() -> None:
    assert ms_samples(10.0, 48000) == 480
    assert ms_samples(2.0, 44100) == 88                                 # 88.2
    assert ms_samples(30.0, 22050) == 662                               # 661.5 rounds to even


@pytest.mark.parametrize("rate, p, min_rate, message", [
    (1000, 0, 2000, "ring needs a rate of at least 2 kHz, got 1000"),
    (4000, 0, 8000, "ring needs a rate of at least 8 kHz, got 4000"),
    (48000, 100, 2000, "peak 100 outside the 100 samples"),
    (48000, -1, 2000, "peak -1 outside the 100 samples"),
])
def test_check_peak_names_the_value(rate: int, p: int, min_rate: int, message: str) -> None:
    with pytest.raises(ValueError) as err:
        check_peak(np.zeros(100, np.float32), p, rate, what="ring needs", min_rate=min_rate)
    assert str(err.value) == message
    check_peak(np.zeros(100, np.float32), 99, min_rate, what="ring needs", min_rate=min_rate)   # the edges pass


def test_window_in_holds_up_to_the_last_sample() -> None:
    # 30 ms at 48 kHz: 1440 samples after the peak at 100 must be in the clip
    assert window_in(1540, 100, 48000, 30.0)
    assert not window_in(1539, 100, 48000, 30.0)
    assert window_in(662, 0, 22050, 30.0) and not window_in(661, 0, 22050, 30.0)     # rounded as ms_samples
