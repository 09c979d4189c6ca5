"""Benchmarks that check their outputs before timing still agree with their reference.

``benchmarks/vision.py`` times sensekit's chain against the raw-OpenCV reference only after
checking that both give the same images and rects on every frame; when a default changes (the
motion method became the background model), the check is what says the comparison is no
longer like for like. Run tiny (160x120, 3 rounds): the ratio is not asserted here (timing
belongs to the benchmark), only that the outputs are equal and it prints its line.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO.parent / "shared" / "bench"


def test_the_vision_benchmark_still_compares_equal_outputs() -> None:
    if not (BENCH / "vision_ref.py").exists():
        pytest.skip(f"the reference chain {BENCH / 'vision_ref.py'} is absent")
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "vision.py"), "--sizes", "160x120",
                           "--rounds", "3"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "outputs equal on 16 frames" in proc.stdout
    line = json.loads(proc.stdout.strip().splitlines()[-1])
    assert line["name"] == "vision.sensekit.chain_vs_ref" and line["ratio"] > 0
