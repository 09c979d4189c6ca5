"""``sensekit teach gesture`` and ``events --hands --gestures`` on real footage (needs the extra).

v02 (../shared/data/video/hands): a hand flipping and pinching twice (frames ~95-105 and
~140-150 at 25 fps). Taught "pinch" on the first pinch and "other" on the frames before it,
the events command then names the second pinch "pinch" (with a confidence) and goes back to
"other" after it. Taught into a venue profile instead of a file, the events are byte-identical.
"""
from __future__ import annotations

from sensekit.installed import install_hint
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.hands
pytest.importorskip("mediapipe", reason=f"needs the hands extra: {install_hint('hands')}")
pytest.importorskip("sklearn", reason=f"needs the hands extra: {install_hint('hands')}")


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sensekit", *argv], capture_output=True, text=True, timeout=600)


def test_teach_then_name_the_second_pinch(shared_data: Path, tmp_path: Path):
    folder = shared_data / "video" / "hands" / "videos"
    if not folder.is_dir():
        pytest.skip(f"hand footage not found at {folder}")
    clip = str(next(folder.glob("v02_*.mp4")))
    model = tmp_path / "v02.json"
    fps = 25.0
    r = _run("teach", "gesture", clip, "--class", f"pinch={95 / fps:.3f}-{105 / fps:.3f}",
             "--class", f"other=0-{90 / fps:.3f}", "--out", str(model))
    assert r.returncode == 0, r.stderr
    assert "taught 2 gestures" in r.stdout
    saved = json.loads(model.read_text())
    assert saved["classes"] == ["other", "pinch"]
    venue = tmp_path / "venue.toml"
    r = _run("teach", "gesture", clip, "--class", f"pinch={95 / fps:.3f}-{105 / fps:.3f}",
             "--class", f"other=0-{90 / fps:.3f}", "--profile", str(venue))
    assert r.returncode == 0, r.stderr
    # the same model from a JSON file and from the venue profile: byte-identical events
    runs = [_run("events", f"file:{clip}", "--hands", "--gestures", str(model), "--jsonl"),
            _run("events", f"file:{clip}", "--hands", "--profile", str(venue), "--jsonl")]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    changes = [json.loads(line) for line in runs[0].stdout.splitlines() if '"event":"gesture"' in line]
    names = {c["gesture"] for c in changes}
    assert names <= {"pinch", "other", "none"}, names
    second = [c for c in changes if c["gesture"] == "pinch" and 125 / fps <= c["t"] <= 155 / fps]
    assert second and 0.6 <= second[0]["confidence"] <= 1.0, changes
    assert any(c["gesture"] != "pinch" and c["t"] > second[0]["t"] for c in changes), changes


def test_a_bad_model_file_is_one_line(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "x"}')
    r = _run("events", "demo", "--hands", "--gestures", str(bad), "--max-items", "3")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "not a taught gestures model" in r.stderr, r.stderr
