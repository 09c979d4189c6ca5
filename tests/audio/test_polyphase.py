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
