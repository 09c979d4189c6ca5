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


SAVE = textwrap.dedent("""
    import sys
    from sensekit.atomic import write_text_atomic
    from sensekit.profile.save import save_profile
    save_profile({"audio.gain": 40.0}, "venue.toml")
    save_profile({"audio.gain": 41.0}, "venue.toml")      # the edit of an existing profile
    write_text_atomic("model.json", "{}", what="the gesture model")
""")


def _calls_after_renames(trace: str) -> list[tuple[str, list[str]]]:
    """For each rename onto a name in the folder, the calls that follow it (until the next rename)."""
    out: list[tuple[str, list[str]]] = []
    for line in trace.splitlines():
        if "rename" in line and "= 0" in line:
            out.append((line, []))
        elif out:
            out[-1][1].append(line)
    return out


@pytest.mark.skipif(not Path("/usr/bin/strace").exists(), reason="needs strace to watch the system calls")
def test_a_save_fsyncs_the_folder_after_the_rename_so_a_power_cut_keeps_it(tmp_path: Path):
    """A power cut soon after "saved venue profile" could lose the rename (the folder's entry,
    not yet on the disk, still named the previous file) and bring the previous profile back: the
    file was fsynced, its folder was not. Watched on a real process with strace: after each
    rename, the folder is opened and fsynced."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    r = subprocess.run(["/usr/bin/strace", "-f", "-qq", "-e", "trace=openat,open,rename,renameat,renameat2,fsync",
                        sys.executable, "-c", SAVE], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0 and "ptrace" in r.stderr:
        pytest.skip(f"strace cannot trace here: {r.stderr.strip()[-200:]}")
    assert r.returncode == 0, r.stderr[-2000:]
    renames = [(line, after) for line, after in _calls_after_renames(r.stderr)
               if "venue.toml\"" in line or "model.json\"" in line]
    assert len(renames) == 3, r.stderr[-3000:]
    for line, after in renames:
        opened = [a for a in after if "O_DIRECTORY" in a and "= " in a]
        assert opened, (line, after[:6])
        fd = opened[0].rsplit("= ", 1)[1].strip()
        assert any(f"fsync({fd})" in a and a.rstrip().endswith("= 0") for a in after), (line, after[:6])
