"""A recording stopped by a full disk in its first half second is kept, replays and inspects as
incomplete (not damaged).

The disk is a real file size limit (``RLIMIT_FSIZE`` in the recorder's process: the kernel
refuses to grow any file past it, which is what a full disk does to the recorder); the input is
the bundled demo recording. The recorder writes and fsyncs a frame's timestamp and checksum
rows before the segment that holds the frame is committed, and ``meta.json`` counts committed
frames only, so an unfinished recording holds rows for frames ``meta.json`` does not count yet.
"""
from __future__ import annotations

import contextlib
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recording import ReplaySource
from sensekit.capture.recording_check import check_recording
from sensekit.capture.recording_meta import read_meta
from sensekit.paths import bundled_recording

LIMIT_BYTES = 20_000        # the first video segment of the demo (~50 kB) does not fit


def _record_with_file_limit(out: Path, limit: int) -> subprocess.CompletedProcess[str]:
    def limit_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return subprocess.run(
        [sys.executable, "-m", "sensekit", "record", "--source", f"replay:{bundled_recording('demo')}",
         "--no-progress", str(out)],
        preexec_fn=limit_files, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def cut_short(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("full") / "full.skrec"
    done = _record_with_file_limit(out, LIMIT_BYTES)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "stopped early" in lines[0] and "kept, marked incomplete" in lines[0], lines
    return out


def test_the_first_half_second_cut_by_a_full_disk_replays(cut_short: Path) -> None:
    meta = read_meta(cut_short)
    assert meta["complete"] is False and meta["frames"] == 0 and meta["audio_samples"] > 0
    # rows were written for frames of the segment that did not fit
    assert (cut_short / "video_ts.csv").read_text().count("\n") > 2
    src = ReplaySource(cut_short)
    items = []
    with src:
        while True:
            try:
                items.append(src.read())
            except EOFError:
                break
    blocks = [i for i in items if isinstance(i, AudioBlock)]
    assert blocks and not [i for i in items if isinstance(i, VideoFrame)]
    assert sum(len(b.samples) for b in blocks) == meta["audio_samples"]


def test_inspect_calls_it_incomplete_not_damaged(cut_short: Path) -> None:
    rep = check_recording(cut_short)
    assert rep.problems == []
    assert not rep.complete
    assert any("unfinished segment" in n for n in rep.notes), rep.notes


def test_a_disk_that_fills_later_keeps_the_first_reason_and_the_recording(tmp_path: Path) -> None:
    # 200 kB: audio.wav reaches the limit after 6 s; the closing flush then fails too, and its
    # error used to replace the first ("recording '...' failed: File too large", nothing said
    # about what was kept)
    out = tmp_path / "later.skrec"
    done = _record_with_file_limit(out, 200_000)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("sensekit: error: recording 'later.skrec' stopped early: File too large; "
                               "the "), lines[0]
    assert lines[0].endswith("s recorded so far are kept, marked incomplete"), lines[0]
    meta = read_meta(out)
    assert meta["complete"] is False and meta["frames"] > 60
    assert check_recording(out).problems == []
    frames = 0
    with ReplaySource(out) as src:
        while True:
            try:
                frames += isinstance(src.read(), VideoFrame)
            except EOFError:
                break
    assert frames >= meta["frames"]        # every committed segment (meta.json may lag one)


_HOLD_OPEN = r'''
import json, os, resource, sys
import numpy as np
from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recorder import Recorder

def record(path, n):
    rng = np.random.default_rng(0)
    rec = Recorder(path, video=(16, 16, 10.0), audio=(8000, 1), fsync=False)
    failed = None
    try:
        for i in range(n):
            rec.write(VideoFrame(i, i / 10, np.zeros((16, 16, 3), np.uint8)))
            rec.write(AudioBlock(i, i / 10, (rng.standard_normal(800) * 0.1).astype(np.float32), 8000))
    except OSError as exc:
        failed = str(exc)
    try:
        rec.close(complete=failed is None)
        closed = None
    except OSError as exc:
        closed = str(exc)
    return rec, failed, closed           # the caller still holds the recorder

out = sys.argv[1]
record(os.path.join(out, "warm.skrec"), 8)     # lazy imports open what they keep open
before = set(os.listdir("/proc/self/fd"))
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), int(sys.argv[2])))
rec, failed, closed = record(os.path.join(out, "full.skrec"), 100)
leaked = []
for fd in set(os.listdir("/proc/self/fd")) - before:
    try:
        leaked.append(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        pass                                   # the descriptor listdir itself used
print(json.dumps({"failed": failed, "closed": closed, "leaked": leaked}))
'''


def test_a_close_that_fails_on_a_full_disk_still_closes_every_file(tmp_path: Path) -> None:
    # the closing flush of audio.wav failed, and the files after it in close() (audio.wav
    # itself, both checksum logs) stayed open as long as the caller held the recorder
    done = subprocess.run([sys.executable, "-c", _HOLD_OPEN, str(tmp_path), "20000"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["failed"] is not None and "File too large" in got["failed"]
    assert got["closed"] is not None and "File too large" in got["closed"]     # the first error, raised
    assert got["leaked"] == [], got["leaked"]
    assert read_meta(tmp_path / "full.skrec")["complete"] is False


def _open_paths(folder: Path) -> list[str]:
    paths = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):                 # the descriptor listdir used
            paths.append(os.readlink(f"/proc/self/fd/{fd}"))
    return [p for p in paths if p.startswith(str(folder))]


def test_release_closes_the_segment_a_failed_flush_left_open(tmp_path: Path) -> None:
    # Recorder.close() calls it when its flush failed before the segment was committed
    import numpy as np

    from sensekit.capture.video_segments import SegmentWriter

    writer = SegmentWriter(tmp_path / "seg", (16, 16), fps=10.0)
    for i in range(3):
        writer.write(np.zeros((16, 16, 3), np.uint8), i / 10)
    assert _open_paths(tmp_path) == [str(tmp_path / "seg" / "000000.partial.mkv")]
    writer.release()
    writer.release()                                  # idempotent
    assert _open_paths(tmp_path) == []
    assert sorted(p.name for p in (tmp_path / "seg").iterdir()) == ["000000.partial.mkv"]
