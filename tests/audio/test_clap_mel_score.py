"""The twenty-third pass: the log-mel linear score of a close call, and the wait that uses it
(the score computed in the stream is the one computed offline on the whole clip)."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.audio.clap_mel_score import (
    AFTER_S,
    BEFORE_S,
    LinearScore,
    fit_linear,
    log_mel,
    mel_bank,
    mel_decision,
    mel_features,
)
from sensekit.evaluation.audio.clap_mel_stream import MelWaitDetector
from sensekit.evaluation.audio.clap_ring_stream import RingWaitDetector
from sensekit.evaluation.audio.evaluate import read_clips, read_wav
from tests.audio.helpers import add_at, clap_burst, noise_floor, stream_claps

#: a ring model on the 18 inputs: a clap when late_db (index 16) is at most -25 dB (NaN: a clap)
RING = {"depth": 1, "base": 0.0, "feature": [[16]], "threshold": [[-25.0]], "leaf": [[4.0, -4.0]]}
CLIPS = ("clap_room-small_0.wav", "clap_sparse_eldar-sample2.wav", "clap_k_mixed18.wav",
         "clap_j_sparse7.wav", "typing_ibm_part1.wav")
N = 16 * 96 + 1


stream = stream_claps


def test_mel_bank_and_window() -> None:
    bank = mel_bank()
    assert bank.shape == (96, 1025) and np.allclose(bank.sum(axis=1), 1.0) and (bank >= 0).all()
    rate = 16000
    x = noise_floor(1.0, rate, dbfs=-70.0)
    add_at(x, clap_burst(rate), 0.5, rate)
    p = int(np.argmax(np.abs(x)))
    m = log_mel(x, rate, p)
    assert m.shape == (16, 96) and np.isfinite(m).all() and m.min() >= 0.0
    assert m[10].mean() > m[0].mean() + 0.1                # the frame at the peak against 0.23 s before it
    assert np.allclose(log_mel(100.0 * x, rate, p), m, atol=1e-6)  # the window is scaled to a peak of 1
    assert not log_mel(x, rate, -10 * rate).any()          # nothing there: zeros
    assert 0.29 < BEFORE_S < 0.31 and abs(AFTER_S - 0.13) < 1e-12
    with pytest.raises(ValueError, match="sample rate"):
        log_mel(x, 0, p)


def test_linear_score_is_the_fitted_regression() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(23)
    F = rng.normal(size=(400, 6)) * np.array([1.0, 5.0, 0.1, 1.0, 2.0, 1.0]) + 3.0
    y = (F[:, 0] + 0.2 * F[:, 1] + rng.normal(size=400) > 4.0).astype(int)
    f = fit_linear(F, y)
    ref = make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=3000, class_weight="balanced"))
    assert np.allclose(f(F), ref.fit(F, y).decision_function(F), atol=1e-6)
    g = LinearScore.from_json(f.to_json())
    assert np.array_equal(g(F), f(F))
    with pytest.raises(ValueError, match="takes 6 inputs, got 5"):
        f(F[:, :5])
    with pytest.raises(ValueError, match="claps and non-claps"):
        fit_linear(F, np.ones(400, int))
    assert mel_features(np.ones((16, 96)), -0.5).shape == (N,)


def test_the_two_rules() -> None:
    r, s = np.array([1.0, 1.0, -0.5, -2.0]), np.array([0.5, -1.0, 1.0, 1.5])
    assert mel_decision("veto", r, s, 0.0).tolist() == [True, False, False, False]
    assert mel_decision("sum", r, s, 0.0).tolist() == [True, True, True, False]
    assert mel_decision("sum", r, s, 0.6).tolist() == [True, False, False, False]
    with pytest.raises(ValueError, match="rule 'or'"):
        mel_decision("or", r, s, 0.0)
    with pytest.raises(ValueError, match="rule 'or'"):
        MelWaitDetector(mel_score=LinearScore(np.zeros(N), 0.0), rule="or", theta=0.0, ring_model=RING,
                        ring_threshold=0.0, margin=1.0)
    with pytest.raises(ValueError, match="a wait of at least 130 ms"):
        MelWaitDetector(mel_score=LinearScore(np.zeros(N), 0.0), rule="veto", theta=0.0, ring_model=RING,
                        ring_threshold=0.0, margin=1.0, wait_ms=100.0)


@pytest.fixture(scope="module")
def clips(shared_data):
    return [(c.file, *read_wav(shared_data / c.file)) for c in read_clips(shared_data)
            if c.file.split("/")[-1] in CLIPS]


class Recording(LinearScore):
    """A linear score that keeps every input it is given."""

    def __call__(self, f: np.ndarray) -> np.ndarray:
        self.__dict__.setdefault("seen", []).append(np.array(f))
        return super().__call__(f)


class Recorded(MelWaitDetector):
    """Keeps each close call's stream index and today's score."""

    def __init__(self, **kw: object) -> None:
        self.calls: list[tuple[int, float]] = []
        super().__init__(**kw)  # type: ignore[arg-type]

    def _close_score(self, p: int, vals: tuple[float, ...], t: float) -> float:
        self.calls.append((p, t - self.threshold))
        return super()._close_score(p, vals, t)


def test_the_streamed_window_is_the_offline_one(clips) -> None:
    """What the stream gives the score is the log-mel of the whole clip at the same peak, and ``t - T``,
    for any block size and offset (the buffer holds the window's 0.3 s before and 0.13 s after the peak)."""
    rng = np.random.default_rng(26)
    seen = 0
    for name, x, rate in clips:
        for block, offset in ((512, 0), (int(rng.choice((64, 333, 4096))), int(rng.integers(1, 1001)))):
            score = Recording(rng.normal(size=N) * 0.05, 0.0)
            det = Recorded(mel_score=score, rule="sum", theta=0.0, ring_model=RING, ring_threshold=0.0, margin=10.0)
            stream(det, x, rate, block=block, offset=offset)
            y = np.concatenate([np.zeros(offset, np.float32), x])
            got = score.__dict__.get("seen", [])
            assert len(got) == len(det.calls) == det.mel_calls == det.close_calls
            for (p, over), f in zip(det.calls, got):
                assert np.allclose(f, mel_features(log_mel(y, rate, p), over), atol=1e-6), (name, block, offset, p)
            seen += len(got)
    assert seen >= 200


def test_the_score_decides_with_the_ring(clips) -> None:
    """A score that always passes leaves the wait's claps (veto); one that never does leaves the far claps
    only; the sum rule's claps do not depend on block size or start offset."""
    rng = np.random.default_rng(27)
    yes, no = LinearScore(np.zeros(N), 50.0), LinearScore(np.zeros(N), -50.0)
    vetoed = 0
    for name, x, rate in clips:
        kw = dict(ring_model=RING, ring_threshold=0.0, margin=10.0)
        wait = stream(RingWaitDetector(**kw), x, rate)  # type: ignore[arg-type]
        assert stream(MelWaitDetector(mel_score=yes, rule="veto", theta=0.0, **kw), x, rate) == wait, name
        det = MelWaitDetector(mel_score=no, rule="veto", theta=0.0, **kw)
        far = stream(det, x, rate)
        assert not any(close for _, _, close in det.decisions) and set(np.round(far, 4)) <= set(np.round(wait, 4))
        vetoed += det.mel_calls
        score = LinearScore(rng.normal(size=N) * 0.05, 0.0)
        ref = stream(MelWaitDetector(mel_score=score, rule="sum", theta=0.0, **kw), x, rate)
        block, offset = int(rng.choice((64, 100, 1024, 4096))), int(rng.integers(1, 1001))
        got = stream(MelWaitDetector(mel_score=score, rule="sum", theta=0.0, **kw), x, rate, block=block, offset=offset)
        assert len(got) == len(ref) and all(abs(a - b) <= 0.001 for a, b in zip(got, ref)), (name, block, offset)
    assert vetoed >= 100
