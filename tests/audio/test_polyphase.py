"""sensekit.audio.polyphase equals scipy.signal.resample_poly (which the close-call score was
fitted with), so an app's start need not import scipy.signal."""
import numpy as np
import pytest
from scipy.signal import resample_poly as scipy_resample_poly

from sensekit.audio.polyphase import resample_poly


@pytest.mark.parametrize("n, up, down", [(20_700, 147, 160), (7_000, 441, 160), (5_000, 2, 1), (9_000, 1, 3),
                                         (20_000, 441, 480), (31, 147, 160), (1, 147, 160), (400, 160, 147)])
def test_equals_scipy(n, up, down):
    x = np.random.default_rng(n).standard_normal(n)
    want = scipy_resample_poly(x, up, down)
    got = resample_poly(x, up, down)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_same_rate_and_errors():
    x = np.arange(5.0)
    assert np.array_equal(resample_poly(x, 3, 3), x)
    with pytest.raises(ValueError, match="positive"):
        resample_poly(x, 0, 2)
    with pytest.raises(ValueError, match="1-D"):
        resample_poly(np.zeros((3, 2)), 2, 1)


@pytest.mark.parametrize("rate", [16000, 22050, 48000])
def test_the_close_call_log_mel_is_the_scipy_one(rate, monkeypatch):
    """The twenty-third pass's log-mel (its evaluation copy resampled with SciPy) is the shipped
    ``clap_wait.log_mel``, which the evaluation and the benchmarks now import, to float32's precision."""
    from sensekit.audio import clap_wait
    from tests.audio.helpers import add_at, clap_burst, noise_floor

    x = noise_floor(1.0, rate, dbfs=-50.0, seed=rate)
    add_at(x, clap_burst(rate), 0.5, rate)
    p = int(np.argmax(np.abs(x)))
    windows = (clap_wait.WINDOW, (-0.5, 1.0))
    got = [clap_wait.log_mel(x, rate, p, w) for w in windows]
    monkeypatch.setattr(clap_wait, "resample_poly", scipy_resample_poly)
    want = [clap_wait.log_mel(x, rate, p, w) for w in windows]
    assert [g.shape for g in got] == [(16, 96), (66, 96)] and want[0].any()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-6)
