"""The thirty-first pass's extra inputs: trees that see attack_peak_db and low_rise_db, measured on what
the detector holds when it looks at a burst."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.clap_features import FEATURES
from sensekit.evaluation.audio.clap_attack import attack_peak_db
from sensekit.evaluation.audio.clap_early_decay import low_rise_db
from sensekit.evaluation.audio.clap_extra_inputs import EXTRA, AppendingTrees, RefitDetector, extra_inputs
from tests.audio.helpers import clap_burst

LOW_RISE = len(FEATURES) + EXTRA.index("low_rise_db")


def one_split(feature: int, threshold: float, left: float, right: float) -> dict[str, object]:
    """One tree of depth 1: ``x[feature] > threshold`` scores ``right``, else ``left``."""
    return {"depth": 1, "base": 0.0, "feature": [[feature]], "threshold": [[threshold]], "leaf": [[left, right]]}


def contact(rate: int, seed: int) -> np.ndarray:
    """A key or a knock: a 4 ms broadband click into a 200 Hz thud decaying in 50 ms."""
    t = np.arange(int(0.1 * rate)) / rate
    y = 0.05 * np.sin(2 * np.pi * 200.0 * t) * np.exp(-t / 0.05)
    c = clap_burst(rate, seed=seed, peak=0.8, length_ms=4.0, decay_ms=1.5)
    y[: len(c)] += c
    return np.asarray(y, np.float32)


def stream(rate: int) -> tuple[np.ndarray, list[float], list[float]]:
    """2.4 s of a quiet floor with claps at 0.3, 0.9, 1.5 s and contacts at 0.6, 1.2, 1.8 s."""
    x = 1e-3 * np.random.default_rng(7).standard_normal(round(2.4 * rate))
    claps, contacts = [0.3, 0.9, 1.5], [0.6, 1.2, 1.8]
    for k, at in enumerate(claps):
        c = clap_burst(rate, seed=2 * k, peak=0.6)
        x[round(at * rate): round(at * rate) + len(c)] += c
    for k, at in enumerate(contacts):
        c = contact(rate, k)
        x[round(at * rate): round(at * rate) + len(c)] += c
    return x.astype(np.float32), claps, contacts


def found(det: RefitDetector, x: np.ndarray, rate: int) -> list[float]:
    out = []
    for k, i in enumerate(range(0, len(x), 512)):
        out += [c.t for c in det.process(x[i:i + 512], i / rate, rate, index=k)]
    return out + [c.t for c in det.finish()]


def near(times: list[float], at: list[float]) -> int:
    return sum(any(abs(t - a) < 0.03 for t in times) for a in at)


@pytest.mark.parametrize("rate", [16000, 44100, 48000])
def test_extra_inputs_are_the_two_features_and_scale_invariant(rate: int) -> None:
    x = np.concatenate([np.zeros(200, np.float32), contact(rate, 1)])
    got = extra_inputs(x, 200, rate)
    assert got == (attack_peak_db(x, 200, rate), low_rise_db(x, 200, rate))
    assert np.allclose(extra_inputs(0.01 * x, 200, rate), got, atol=1e-3)
    assert got[1] > 10.0                                    # the thud outlasts the click


def test_appending_trees_score_the_appended_row() -> None:
    tm = AppendingTrees(one_split(LOW_RISE, 5.0, 3.0, -3.0))
    row = np.zeros(len(FEATURES))
    with pytest.raises(ValueError, match="pending"):
        tm.score(row)
    tm.pending = lambda: (0.0, 10.0)
    assert tm.score(row) == -3.0
    tm.pending = lambda: (0.0, 0.0)
    assert tm.score(row) == 3.0
    assert tm.score(np.append(row, [0.0, 9.0])) == -3.0    # a full row is scored as it is
    with pytest.raises(ValueError, match="features"):
        tm.score(np.zeros(len(FEATURES) + 1))


@pytest.mark.parametrize("rate", [16000, 44100, 48000])
def test_the_detector_uses_the_extra_inputs(rate: int) -> None:
    x, claps, contacts = stream(rate)
    thuds_out = found(RefitDetector(model=one_split(LOW_RISE, 4.0, 3.0, -3.0), threshold=0.0), x, rate)
    assert near(thuds_out, claps) == 3 and near(thuds_out, contacts) == 0
    thuds_only = found(RefitDetector(model=one_split(LOW_RISE, 4.0, -3.0, 3.0), threshold=0.0), x, rate)
    assert near(thuds_only, claps) == 0 and near(thuds_only, contacts) == 3


class Seen(AppendingTrees):
    """Keeps every ``EXTRA`` the detector measured."""

    def __init__(self, model: dict[str, object]) -> None:
        super().__init__(model)
        self.seen: list[tuple[float, ...]] = []

    def score(self, v: np.ndarray) -> float:
        assert self.pending is not None
        self.seen.append(self.pending())
        return super().score(v)


@pytest.mark.parametrize("rate", [16000, 48000])
def test_measured_on_the_buffer_as_on_the_whole_signal(rate: int) -> None:
    """At the trees' look (31.5 ms after the peak) both windows (to 30 ms) are in: the values equal the
    whole signal's at each judged burst's peak."""
    x, _, _ = stream(rate)
    model = one_split(LOW_RISE, 5.0, 3.0, -3.0)
    det = RefitDetector(model=model, threshold=0.0)
    det._trees = Seen(model)
    det.keep_features = True
    found(det, x, rate)
    assert isinstance(det._trees, Seen) and len(det._trees.seen) == len(det.features) >= 6
    for f, got in zip(det.features, det._trees.seen):
        assert np.allclose(got, extra_inputs(x, round(f.t_peak * rate), rate), atol=1e-9)


def test_a_plain_detector_with_the_same_trees_is_untouched() -> None:
    """The appended scoring is the refit detector's own: a ``ClapDetector`` given the same dict, made
    after it, scores ``FEATURES`` rows as ever."""
    from sensekit.audio.clap import ClapDetector

    rate = 16000
    x, claps, contacts = stream(rate)
    model = one_split(3, -1e9, -3.0, 3.0)                 # every burst 3.0, whatever its extra inputs
    assert near(found(RefitDetector(model=model, threshold=0.0), x, rate), claps + contacts) == 6
    plain = ClapDetector(model=model, threshold=0.0)
    got: list[float] = []
    for k, i in enumerate(range(0, len(x), 512)):
        got += [c.t for c in plain.process(x[i:i + 512], i / rate, rate, index=k)]
    assert near(got, claps + contacts) == 6


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="rate"):
        extra_inputs(np.zeros(100, np.float32), 0, 1000)
    with pytest.raises(ValueError, match="outside"):
        extra_inputs(np.zeros(100, np.float32), 100, 16000)
