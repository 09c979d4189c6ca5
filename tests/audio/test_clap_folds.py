"""clap_folds: a held-out source's nested threshold never looks at that source's scores."""
from __future__ import annotations

import numpy as np

from sensekit.evaluation.audio.clap_folds import choose_threshold, heldout, nested_thresholds, pooled_f1
from sensekit.evaluation.audio.clap_training import Bursts


def _bursts(rng: np.random.Generator) -> Bursts:
    """Three sources, each one clap clip (20 claps) and one negative clip (30 bursts)."""
    rows = []
    for s in ("a", "b", "c"):
        rows += [(1, s, f"{s}/clap.wav")] * 20 + [(0, s, f"{s}/clap.wav")] * 10
        rows += [(0, s, f"{s}/other.wav")] * 30
    y = np.array([r[0] for r in rows])
    src = np.array([r[1] for r in rows])
    clip = np.array([r[2] for r in rows])
    n = len(rows)
    return Bursts(rng.normal(size=(n, 2)), y, src, np.array([""] * n), np.array(["orig"] * n),
                  clip, {c: (20 if c.endswith("clap.wav") else 0) for c in set(clip.tolist())},
                  {c: ("clap" if c.endswith("clap.wav") else "speech") for c in set(clip.tolist())})


def _scores(b: Bursts, rng: np.random.Generator, shift: float) -> np.ndarray:
    """Claps score ~2 + shift, the rest ~-1 + shift."""
    return np.where(b.y == 1, 2.0, -1.0) + shift + rng.normal(0.0, 0.5, len(b.y))


def test_a_sources_nested_threshold_ignores_its_own_scores():
    rng = np.random.default_rng(0)
    b = _bursts(rng)
    folds = {s: _scores(b, rng, 0.0) for s in ("a", "b", "c")}
    before = nested_thresholds(b, folds)
    folds["a"] = _scores(b, rng, 3.0)             # source a's own fold scores everything higher
    after = nested_thresholds(b, folds)
    assert after["a"] == before["a"]
    # b's and c's nested thresholds, chosen with a's fold among the others, do move with it,
    # and so does the shared one (all folds)
    assert after["b"] > before["b"] and after["c"] > before["c"]
    assert choose_threshold(b, folds) > choose_threshold(b, {s: folds[s] for s in ("b", "c")})


def test_figures_at_a_threshold():
    rng = np.random.default_rng(1)
    b = _bursts(rng)
    perfect = np.where(b.y == 1, 5.0, -5.0)
    folds = {s: perfect for s in ("a", "b", "c")}
    assert pooled_f1(b, folds, 0.0) == 1.0
    assert heldout(b, perfect, 0.0, "a") == 1.0
    # everything a clap: precision 20/30 on the clap clip, and the negative clip fires
    assert heldout(b, np.full(len(b.y), 9.0), 0.0, "a") == np.mean([2 * 20 / (2 * 20 + 10), 0.0])
    assert pooled_f1(b, folds, 6.0) == 0.0
