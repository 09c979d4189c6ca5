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


def test_the_benchmarks_refuse_missing_shared_data_in_one_place(tmp_path, capsys) -> None:
    """``_reference.data_refused``: the one line and the verdict every benchmark that needs the shared data
    refuses with (eleven wrote the three lines each); none writes that line itself any more
    (``_clap_clips.clap_clips`` has its own, which names ``--data``)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from _reference import data_refused

    assert data_refused(tmp_path) is True
    assert capsys.readouterr().err == f"shared data not found at {tmp_path}\n"
    (tmp_path / "labels.csv").write_text("file,label\n")
    assert data_refused(tmp_path) is False and capsys.readouterr().err == ""
    own = [p.name for p in (REPO / "benchmarks").glob("*.py")
           if p.name not in ("_reference.py", "_clap_clips.py") and "shared data not found at" in p.read_text()]
    assert own == []
