"""The thirty-fifth pass: ``clap_refit_inputs.nest_wait`` takes the latency caps from the delays it is given.

Made-up bursts of three sources whose claps lie close to the threshold: a wider margin finds more of them
(the ring's scores are right where the trees are not), so the margin chosen is as wide as the cap on the
share of waiting recorded claps lets it be. Delays that all come out together (the p50 cannot move) allow
a wide margin; delays spread over 0-100 ms allow almost no clap to wait.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from sensekit.evaluation.audio import clap_training as ct

SOURCES = ("a", "b", "c")


def made_up(rng: np.random.Generator) -> tuple[ct.Bursts, dict[str, np.ndarray], dict[str, np.ndarray]]:
    n = 240
    src = np.repeat(np.array(SOURCES), n)
    y = np.tile(np.r_[np.ones(n // 2, int), np.zeros(n // 2, int)], len(SOURCES))
    # the trees put claps at -1.2..3 and the rest at -4..1.2: the ring's scores separate them
    t = np.where(y == 1, rng.uniform(-1.2, 3.0, len(y)), rng.uniform(-4.0, 1.2, len(y)))
    r = np.where(y == 1, 2.0, -2.0) + rng.normal(0, 0.3, len(y))
    variant = np.tile(np.r_[np.full(n // 4, "orig"), np.full(n // 4, "n_white")], 2 * len(SOURCES))
    clip = np.array([f"{s}_{i % 4}" for s, i in zip(src, range(len(src)))])
    b = ct.Bursts(np.zeros((len(y), 1)), y, src, np.full(len(y), ""), variant, clip,
                  {c: 1 for c in set(clip)}, {c: "clap" for c in set(clip)})
    so = {s: t.copy() for s in SOURCES}
    sr = {s: r.copy() for s in SOURCES}
    return b, so, sr


def write_mels(d: Path, b: ct.Bursts, rng: np.random.Generator) -> None:
    idx = np.arange(len(b.y))
    short = (rng.normal(0, 1, (len(idx), 2, 3)) + b.y[:, None, None]).astype(np.float32)
    np.savez(d / "MELS.npz", idx=idx, short=short)


def test_the_margin_follows_the_delays_given(tmp_path: Path) -> None:
    from clap_refit_inputs import nest_wait

    rng = np.random.default_rng(0)
    b, so, sr = made_up(rng)
    write_mels(tmp_path, b, rng)
    together = {s: [31.5] * 50 for s in SOURCES}
    spread = {s: np.linspace(0.0, 100.0, 50).tolist() for s in SOURCES}
    (tmp_path / "DELAYS_today_0_517.json").write_text(json.dumps(spread))
    (tmp_path / "together.json").write_text(json.dumps(together))
    T = {s: 0.0 for s in SOURCES}
    default = nest_wait(b, so, sr, T, tmp_path)
    given = nest_wait(b, so, sr, T, tmp_path, tmp_path / "together.json")
    again = nest_wait(b, so, sr, T, tmp_path, tmp_path / "DELAYS_today_0_517.json")
    for s in SOURCES:
        assert given[s]["margin"] > default[s]["margin"], (s, given[s]["margin"], default[s]["margin"])
        assert again[s]["margin"] == default[s]["margin"]
