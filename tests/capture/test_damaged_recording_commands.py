"""Damaged recordings through the commands a user runs on them: ``sensekit inspect``, ``sensekit
events`` and an app (``sensekit run color_ball --source``), in this process (``sensekit.cli.main``,
stderr captured, a worker thread with a time limit). ``tests/test_recording_fuzz.py`` fuzzes the
library (``ReplaySource``, ``check_recording``); this goes through the command lines above it.

Seeded cases (``numpy.random.default_rng([SEED, k])``, the same every run): one file of a small
recording (24 frames of 64x48 at 12 fps, 2 s of 8 kHz audio, version 2) cut at a random byte, 1-8
bits flipped, or a 32-bit word set to 0, 2^31-1, 2^31 or 2^32-1; half of the copies marked
incomplete. Each command must end (60 s), print no traceback, exit 0 (``inspect``: 0 or 1, its
"damaged" status) or exit 2 with one line, log each warning in one line and at most
``MAX_WARNINGS`` of them (a problem is said once, not once a frame); ``inspect`` and the replay must
agree on the frames that play.
"""
from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recording import Recorder

SEED, MAX_WARNINGS, TIMEOUT_S = 20, 6, 60.0
CASES = int(os.environ.get("SENSEKIT_RECORDING_CMD_CASES", "24"))
WORDS = [0, 2**31 - 1, 2**31, 2**32 - 1]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cmd") / "small.skrec"
    rng = np.random.default_rng(1)
    audio = (rng.standard_normal(16000) * 0.2).astype(np.float32)
    with Recorder(path, video=(64, 48, 12.0), audio=(8000, 1), block_size=400, start_unix=0.0,
                  fsync=False) as rec:
        items: list[VideoFrame | AudioBlock] = [
            VideoFrame(i, i / 12, rng.integers(0, 256, (48, 64, 3), dtype=np.uint8)) for i in range(24)]
        items += [AudioBlock(k, k * 0.05, audio[k * 400:(k + 1) * 400], 8000) for k in range(40)]
        for item in sorted(items, key=lambda it: (it.t, isinstance(it, AudioBlock))):
            rec.write(item)
    return path


def _mark_incomplete(copy: Path) -> None:
    meta_path = copy / "meta.json"
    try:
        meta = json.loads(meta_path.read_text())
    except (ValueError, UnicodeDecodeError):
        return
    if isinstance(meta, dict):
        meta["complete"] = False
        meta_path.write_text(json.dumps(meta))


def _damage(pristine: Path, copy: Path, k: int) -> str:
    """Damage one file of ``copy`` as case ``k`` says; what was done."""
    rng = np.random.default_rng([SEED, k])
    files = sorted(p.relative_to(pristine) for p in pristine.rglob("*") if p.is_file())
    name = files[int(rng.integers(len(files)))]
    target = copy / name
    data = bytearray(target.read_bytes())
    op = ["cut", "flip", "word"][int(rng.integers(3))]
    if op == "cut" or len(data) < 4:
        data = data[:int(rng.integers(len(data) + 1))]
    elif op == "flip":
        for _ in range(int(rng.integers(1, 9))):
            data[int(rng.integers(len(data)))] ^= 1 << int(rng.integers(8))
    else:
        at = int(rng.integers(len(data) - 3))
        data[at:at + 4] = WORDS[int(rng.integers(len(WORDS)))].to_bytes(4, "little")
    target.write_bytes(bytes(data))
    incomplete = bool(rng.random() < 0.5)
    if incomplete:
        _mark_incomplete(copy)
    return f"case {k}: {op} {name}{' (incomplete)' if incomplete else ''}"


def _run(argv: list[str]) -> tuple[int | None, str, list[logging.LogRecord]]:
    """``sensekit ARGV`` in a worker thread: (exit status, None if it hung; stderr; records)."""
    from sensekit.cli import main

    err = io.StringIO()
    out: list[int | None] = []
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    keep = Keep(logging.WARNING)

    def work() -> None:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                out.append(main(argv))
            except SystemExit as exc:
                out.append(exc.code if isinstance(exc.code, int) else 2)
            except BaseException as exc:  # noqa: BLE001 - a traceback is the finding
                err.write(f"Traceback: {type(exc).__name__}: {exc}")
                out.append(-1)

    logging.getLogger().addHandler(keep)
    try:
        t = threading.Thread(target=work, daemon=True)
        t.start()
        t.join(TIMEOUT_S)
    finally:
        logging.getLogger().removeHandler(keep)
    return (out[0] if out else None), err.getvalue(), records


def _check(argv: list[str], what: str, ok_codes: tuple[int, ...]) -> int:
    code, err, records = _run(argv)
    assert code is not None, f"{what}: `sensekit {' '.join(argv[:2])}` hung"
    assert "Traceback" not in err, f"{what}: {err[-2000:]}"
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if code == 2:
        assert len(lines) == 1 and ": error: " in lines[0], f"{what}: {lines}"
    else:
        assert code in ok_codes, f"{what}: exit {code}: {lines}"
    warnings = [r.getMessage() for r in records if r.name.startswith("sensekit")]
    assert all("\n" not in w for w in warnings), f"{what}: {warnings}"
    assert len(warnings) <= MAX_WARNINGS, f"{what}: {len(warnings)} warnings: {warnings[:8]}"
    return code


def _frames_played(rec: Path) -> int | None:
    from sensekit.capture.recording import ReplaySource
    from sensekit.errors import RecordingError

    try:
        return sum(isinstance(i, VideoFrame) for i in ReplaySource(rec))
    except RecordingError:
        return None


@pytest.mark.parametrize("k", range(CASES))
def test_a_damaged_recording_through_inspect_events_and_an_app(pristine: Path, tmp_path: Path, k: int):
    copy = Path(shutil.copytree(pristine, tmp_path / "take.skrec"))
    what = _damage(pristine, copy, k)
    _check(["inspect", str(copy)], what, (0, 1))
    _check(["events", str(copy), "--level", "--motion"], what, (0,))
    _check(["run", "color_ball", "--source", str(copy), "--headless", "--frames", "30"], what, (0,))
    from sensekit.capture.recording_check import check_recording
    from sensekit.errors import RecordingError

    with contextlib.suppress(RecordingError):
        report = check_recording(copy)
        played = _frames_played(copy)
        if played is not None and report.video is not None and report.video.playable_frames is not None:
            assert report.video.playable_frames == played, (what, report.problems)


def test_timestamps_damaged_early_in_an_incomplete_recording_play_through_every_command(
        pristine: Path, tmp_path: Path):
    """The case the sweep found (harden20): a timestamp row failing its checksum at frame 2 of 24
    of an incomplete recording; ``events`` and the app refused it (exit 2, after a warning that
    the frames before it play)."""
    copy = Path(shutil.copytree(pristine, tmp_path / "take.skrec"))
    path = copy / "video_ts.csv"
    lines = path.read_bytes().split(b"\n")
    row = bytearray(lines[3])
    row[-1] ^= 1
    lines[3] = bytes(row)
    path.write_bytes(b"\n".join(lines))
    _mark_incomplete(copy)
    what = "frame 2's timestamp, incomplete"
    assert _check(["events", str(copy), "--level"], what, (0,)) == 0
    assert _check(["run", "color_ball", "--source", str(copy), "--headless", "--frames", "30"], what, (0,)) == 0
    assert _check(["inspect", str(copy)], what, (1,)) == 1      # damaged, and it says what plays
    from sensekit.capture.recording_check import check_recording

    video = check_recording(copy).video
    assert video is not None and (video.listed_frames, video.playable_frames, video.unverified) == (2, 0, None)
