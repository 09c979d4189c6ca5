"""How loud a clap is (``sensekit.audio.clap_loudness``): tiny hand-made signals."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.clap_loudness import clap_loudness, rms_5ms_peak

from .helpers import burst_in_silence

RATE = 48000


def test_loudest_5ms_rms_of_a_constant_and_of_claps():
    x = np.full(4800, 0.25, np.float32)
    assert rms_5ms_peak(x, RATE) == pytest.approx(0.25)
    two = burst_in_silence() + burst_in_silence(at=0.2, amp=0.1)
    quiet, loud = clap_loudness(two, RATE, [0.2]), clap_loudness(two, RATE, [0.5])
    assert loud / quiet == pytest.approx(5.0, rel=0.1)
    assert clap_loudness(two, RATE, [0.2, 0.5]) == pytest.approx((quiet + loud) / 2)
