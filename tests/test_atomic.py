"""``sensekit teach gesture --out MODEL.json`` on a full disk: the model was written with
``open(path, "w")``, which empties the file first - a full disk left the previous model cut to
the 4 kB that fit (not JSON: the next `--gestures MODEL.json` refused it) and the teaching was
lost with it. Now the model is written whole beside it and renamed into place
(``sensekit.atomic``): one line, the previous model intact, no temporary file left.

The full disk is a file size limit (``RLIMIT_FSIZE``, 4 kB) set in a child process, as in
tests/apps/test_screenshot_full_disk.py; the hand stage is replaced by examples made here
(MediaPipe is an extra), everything else is the command as a user runs it.
"""
from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sensekit.atomic import write_text_atomic

REPO = Path(__file__).resolve().parents[1]

TEACH = textwrap.dedent("""
    import sys
    import numpy as np
    import sensekit.cli._teach_gesture as teach
    from sensekit.cli import main
    from sensekit.vision.taught import hand_features
    rng = np.random.default_rng(3)
    teach.collect = lambda source, ranges, model="full": {
        name: [hand_features(p) for p in rng.uniform(0, 100, (40, 21, 3))] for name in ("star", "heart")}
    sys.exit(main(["teach", "gesture", "demo", "--class", "star=1-2", "--class", "heart=3-4",
                   "--out", "model.json"]))
""")


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_a_gesture_model_on_a_full_disk_keeps_the_previous_one(tmp_path):
    previous = json.dumps({"previous": True})
    (tmp_path / "model.json").write_text(previous)
    env = {**os.environ, "PYTHONPATH": str(REPO), "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    r = subprocess.run([sys.executable, "-c", TEACH], cwd=tmp_path, preexec_fn=_limit, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr[-2000:]
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert "model.json" in lines[0] and "the previous one is kept" in lines[0], lines[0]
    assert (tmp_path / "model.json").read_text() == previous
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json"]


def test_the_model_without_a_limit_is_written_whole(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    r = subprocess.run([sys.executable, "-c", TEACH], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    model = json.loads((tmp_path / "model.json").read_text())
    assert sorted(model["classes"]) == ["heart", "star"] and len(model["labels"]) == 80
    assert stat.S_IMODE((tmp_path / "model.json").stat().st_mode) == 0o644


def test_a_fifo_or_a_folder_is_left_alone_and_a_symlink_followed(tmp_path):
    fifo = tmp_path / "m.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match=r"'.*m.json'.*is a FIFO"):
        write_text_atomic(fifo, "{}", what="the model")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    (tmp_path / "d.json").mkdir()
    with pytest.raises(OSError, match="is a folder"):
        write_text_atomic(tmp_path / "d.json", "{}")
    real = tmp_path / "real.json"
    real.write_text("old")
    real.chmod(0o600)
    (tmp_path / "link.json").symlink_to(real)
    write_text_atomic(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink() and real.read_text() == "new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
