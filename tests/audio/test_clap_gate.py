"""The air gate fitted on the clean claps only (clap_training.train(gate_from=CLEAN))."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.clap_features import FEATURES, TreeModel
from sensekit.evaluation.audio.clap_training import CLEAN, GATE_LEAF, Bursts, train


def _bursts() -> Bursts:
    """Two sources; claps with air -12..-4 dB in the clean copies and -45..-35 dB under speech
    (``mix0``), others with air -30..-20 dB."""
    rng = np.random.default_rng(5)
    rows = []
    for s in ("a", "b"):
        rows += [(1, s, "orig", rng.uniform(-12, -4)) for _ in range(40)]
        rows += [(1, s, "mix0", rng.uniform(-45, -35)) for _ in range(40)]
        rows += [(0, s, "orig", rng.uniform(-30, -20)) for _ in range(80)]
    n = len(rows)
    X = rng.normal(0.0, 1.0, (n, len(FEATURES)))
    X[:, FEATURES.index("air_db")] = [r[3] for r in rows]
    src = np.array([r[1] for r in rows])
    return Bursts(X, np.array([r[0] for r in rows]), src, np.array([""] * n),
                  np.array([r[2] for r in rows]), np.array([f"{s}/x.wav" for s in src]),
                  {"a/x.wav": 80, "b/x.wav": 80}, {"a/x.wav": "clap", "b/x.wav": "clap"})


def test_claps_under_speech_do_not_lower_the_gate_fitted_on_clean_claps() -> None:
    b = _bursts()
    every, clean = train(b), train(b, gate_from=CLEAN)
    gate_every, gate_clean = every["threshold"][-1][0], clean["threshold"][-1][0]
    assert gate_every < -45.0 and -16.0 < gate_clean < -12.0    # 0.1 % quantile less IQR / 4
    assert every["feature"][:-1] == clean["feature"][:-1]          # the same trees
    v = np.zeros(len(FEATURES))
    v[FEATURES.index("air_db")] = -30.0                             # a dull burst
    assert TreeModel(every).score(v) - TreeModel(clean).score(v) == pytest.approx(-GATE_LEAF)
