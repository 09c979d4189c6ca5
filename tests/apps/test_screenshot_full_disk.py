"""A screenshot or a video on a full disk: `--screenshot` ends the run in one line naming the
file (it was a ``pygame.error`` traceback), key `s` says it could not save and the piece goes on
(it ended the piece), and neither leaves a truncated picture behind (a 4 kB ``shot.png`` was
left). `--video` checks the container at the end: a full disk had left a video of 3 decodable
frames of 200 and a run that exited 0 saying nothing.

The full disk is a file size limit (``RLIMIT_FSIZE``, 4 kB) set in a child process: the kernel
refuses to grow any file past it, as a full disk does.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap


def _limit(size: int = 4096) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}


def test_the_screenshot_option_on_a_full_disk_is_one_line_and_leaves_nothing(tmp_path):
    r = subprocess.run([sys.executable, "-m", "sensekit", "run", "clapper", "--headless", "--frames", "20",
                        "--screenshot", "shot.png"], cwd=tmp_path, preexec_fn=_limit, env=ENV,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr[-2000:]
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr        # libpng's own line came first
    assert r.stderr.strip().splitlines()[-1].startswith("sensekit: error: [Errno 5] cannot save the "
                                                         "screenshot 'shot.png'")
    assert list(tmp_path.iterdir()) == []


def test_key_s_on_a_full_disk_says_so_and_the_piece_goes_on(tmp_path):
    code = textwrap.dedent("""
        import json, pygame
        from pathlib import Path
        from sensekit.app.host import AppHost, RunOptions
        from sensekit.app.registry import load
        from sensekit.app.sources import bundled_source
        app_cls = load("clapper")
        with bundled_source(app_cls) as source:
            host = AppHost(app_cls, source, RunOptions(headless=True, screenshot_dir=Path("shots")))
            host.step()
            host.press(pygame.K_s)
            said = host.toast[0]
            t = host.sim_t
            for _ in range(5):
                host.step()
            print(json.dumps({"said": said, "went_on": host.sim_t > t}))
            host.close()
    """)
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, preexec_fn=_limit, env=ENV,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout.strip().splitlines()[-1]
    assert '"went_on": true' in out and "could not save the screenshot" in out, out
    assert list((tmp_path / "shots").iterdir()) == []


def test_a_video_cut_short_by_a_full_disk_is_reported(tmp_path):
    for ext in ("mkv", "avi"):         # (an intact video passes the check: tests/apps/test_layer.py)
        r = subprocess.run([sys.executable, "-m", "sensekit", "run", "clapper", "--headless", "--frames", "120",
                            "--video", f"out.{ext}", "--events", "ev.jsonl"], cwd=tmp_path,
                           preexec_fn=lambda: _limit(64 * 1024), env=ENV, capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 2, (ext, r.stderr[-2000:])
        last = r.stderr.strip().splitlines()[-1]
        assert last == (f"sensekit: error: [Errno 5] the video 'out.{ext}' does not hold the 120 frames "
                        "written to it (is the disk full?)"), (ext, last)
        assert (tmp_path / "ev.jsonl").read_text().count("\n") > 10       # the events file was closed whole


def test_a_video_that_does_not_fit_leaves_the_previous_video_as_it_was(tmp_path):
    # the writer wrote into the file from the first frame: the previous video was lost and the
    # partial one left in its place; now it is written beside it and renamed when it is whole
    previous = b"the video of last night" * 10
    (tmp_path / "out.mkv").write_bytes(previous)
    r = subprocess.run([sys.executable, "-m", "sensekit", "run", "clapper", "--headless", "--frames", "120",
                        "--video", "out.mkv"], cwd=tmp_path, preexec_fn=lambda: _limit(64 * 1024), env=ENV,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr[-2000:]
    assert r.stderr.strip().splitlines() == [       # (OpenCV warned once a frame, FFmpeg once more)
        "sensekit: error: [Errno 5] the video 'out.mkv' does not hold the 120 frames written to it "
        "(is the disk full?); the video that was there is kept"]
    assert (tmp_path / "out.mkv").read_bytes() == previous
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.mkv"]


def test_a_video_through_a_symlink_is_written_to_its_target(tmp_path):
    (tmp_path / "videos").mkdir()
    (tmp_path / "videos" / "tonight.avi").write_bytes(b"old")
    (tmp_path / "out.avi").symlink_to(tmp_path / "videos" / "tonight.avi")
    r = subprocess.run([sys.executable, "-m", "sensekit", "run", "clapper", "--headless", "--frames", "10",
                        "--video", "out.avi"], cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert (tmp_path / "out.avi").is_symlink()
    assert (tmp_path / "videos" / "tonight.avi").read_bytes()[:4] == b"RIFF"
    assert sorted(p.name for p in (tmp_path / "videos").iterdir()) == ["tonight.avi"]
