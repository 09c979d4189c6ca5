"""A live camera's frame rate is measured from its timestamps, not taken from the stream's claim.

MJPEG over HTTP carries no frame rate, so FFmpeg reports a placeholder 25 fps.
Two MJPEG servers (``tests/capture/mjpeg_server.py``) send 15 fps and 8 fps; the
real CLI, ``sensekit record OUT --camera URL --seconds 3``, records each in a
subprocess. Then:

- ``meta.json`` states the rate measured from the recording's own ``video_ts.csv`` (the
  camera's rate from the median interval, snapped to a standard rate within 1.5 %, or
  the mean if frames were lost), with ``fps_from: "timestamps"``; exact 15 and 8 on known
  frame times are checked in ``test_measured_rate.py``;
- every video segment's container says the rate measured when it was opened
  (``ffprobe`` ``r_frame_rate``; never the stream's 25): exactly the documented rule
  applied to the recording's own ``video_ts.csv`` up to the frame that opened it (the
  first segment is held until 8 intervals after the connect backlog are measured); the
  ``video.ffconcat`` playlist shows each segment at that rate (within Matroska's 1 ms per
  segment) and plays as long as the recording lasted (within 10 %).
  Rates are compared with the recorded timestamps, not with the server's nominal rate
  or the wall-clock time a segment's frames took, which a busy test machine does not keep.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from sensekit.capture.recording_meta import read_meta, read_timestamps
from sensekit.capture.video_segments import STANDARD_FPS, backlog_frames, nominal_fps
from tests.capture.mjpeg_server import MjpegServer

RECORD_S = 3.0

if shutil.which("ffprobe") is None:
    pytest.skip("ffprobe (ffmpeg) is not installed; .ci/run installs it", allow_module_level=True)


def _cli() -> list[str]:
    script = Path(sys.executable).with_name("sensekit")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "sensekit"]


def _probe(path: Path, entries: str) -> list[str]:
    proc = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                           entries, "-of", "csv=p=0", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [line.strip().rstrip(",") for line in proc.stdout.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[float, Path]:
    folder = tmp_path_factory.mktemp("fps")
    env = dict(os.environ, OPENCV_FFMPEG_LOGLEVEL="-8", PYGAME_HIDE_SUPPORT_PROMPT="1")
    out: dict[float, Path] = {}
    with MjpegServer(size=(160, 120), fps=15.0) as s15, MjpegServer(size=(160, 120), fps=8.0) as s8:
        procs = []
        for fps, server in ((15.0, s15), (8.0, s8)):
            out[fps] = folder / f"cam{fps:g}.skrec"
            procs.append(subprocess.Popen(
                _cli() + ["record", str(out[fps]), "--camera", server.url, "--seconds", str(RECORD_S),
                          "--no-progress"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True))
        for p in procs:
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, err[-2000:]
    return out


def _rule(times: np.ndarray) -> tuple[float, float]:
    """The rate ``meta.json`` must state for these frame times, unrounded, and the mean rate
    (``video_segments``' documented rule, written out here from the times alone)."""
    skip = backlog_frames(times[:32].tolist())
    mean = (len(times) - 1 - skip) / (times[-1] - times[skip])
    camera = 1 / float(np.median(np.diff(times[-65:])))
    dropping = times[-1] - times[0] >= 2.0 and mean < 0.95 * camera
    return (mean if dropping else camera), mean


def _frames_at_open(times: np.ndarray, first: int, last: int) -> int:
    """How many frames the writer had when segment ``first``..``last`` was opened: a later
    segment at its first frame; the first held until 8 frame intervals after the connect
    backlog were measured (or 60 frames held), else until its commit."""
    if first > 0:
        return first + 1
    for n in range(1, last + 2):
        head = times[:min(n, 32)].tolist()
        if len(head) - backlog_frames(head) - 1 >= 8 or n - 1 >= 60:
            return n
    return last + 1


@pytest.mark.parametrize("fps", [15.0, 8.0])
def test_meta_states_the_measured_rate(recorded: dict[float, Path], fps: float) -> None:
    """The stated rate is the one the recording's own timestamps give (exact, whatever the
    server's pace on a loaded machine; ``test_measured_rate.py`` checks 15 on known times)."""
    rec = recorded[fps]
    video = read_meta(rec)["video"]
    times = read_timestamps(rec / "video_ts.csv", complete=True)
    rate, mean = _rule(times)
    assert video["fps_from"] == "timestamps"
    # the rows are rounded to 1 us: rates off by up to ~1e-3 fps, so a rounding edge may move
    if nominal_fps(rate) in STANDARD_FPS:
        assert video["fps"] == nominal_fps(rate), (video, rate)
    else:
        assert abs(video["fps"] - rate) <= 0.005 + 1e-3, (video, rate)
    assert abs(video["fps_measured"] - mean) <= 0.0005 + 1e-3, (video, mean)   # drops count
    # (was: within 5 % of the server's nominal rate, which a loaded machine's server does not
    # keep: 7.50 and 7.60 for 8; the mean with frames lost is exact in test_measured_rate.py)


@pytest.mark.parametrize("fps", [15.0, 8.0])
def test_containers_play_at_the_measured_rate(recorded: dict[float, Path], fps: float) -> None:
    """Each segment's container states the rate measured when it was opened; the playlist
    shows the segments at those rates, and as long as the recording lasted."""
    rec = recorded[fps]
    meta = read_meta(rec)
    times = read_timestamps(rec / "video_ts.csv", complete=True)
    segments = sorted((rec / "video").glob("*-*.mkv"))
    assert len(segments) >= 4
    durations = []                                    # each segment's frames at its own rate
    for seg in segments:
        first, last = (int(x) for x in seg.name[:-4].split("-"))
        probed = float(Fraction(_probe(seg, "stream=r_frame_rate")[0]))
        durations.append((last - first + 1) / probed)
        last_rate = probed
        opened = _frames_at_open(times, first, last)
        rate, _ = _rule(times[:opened])               # the rate measured when it was opened
        # the rows are rounded to 1 us (rates off by < 1e-4 of themselves), so a rate on a
        # rounding or snapping edge may go either way; Matroska stores a frame duration in ns
        stated = {nominal_fps(rate * (1 + e)) for e in (-1e-4, 0.0, 1e-4)}
        assert min(abs(probed - r) for r in stated) <= 1e-3, (seg.name, opened, probed, rate)
    # (was: within 20 % of the server's nominal rate, and each segment played within 15 % and a
    # frame of the time its frames took to arrive: 0.60 s played in 0.40 s on a loaded machine)
    # the whole video through the playlist: its last frame is shown when the camera sent it
    pts = [float(t) for t in _probe(rec / "video.ffconcat", "packet=pts_time") if t != "N/A"]
    assert len(pts) == len(times) == meta["frames"]
    real, played = times[-1] - times[0], pts[-1] - pts[0]
    # the playlist shows every segment at its container's rate (Matroska: 1 ms timestamps)
    shown = sum(durations) - 1 / last_rate
    assert abs(played - shown) <= 0.001 * len(segments), (played, shown)
    assert real > RECORD_S * 0.6
    assert abs(played - real) <= 0.1 * real, (played, real)
