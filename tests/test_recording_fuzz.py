"""Corrupt recordings: truncate, flip bytes in, and delete parts of a recording, then load
and replay it. Each attempt either succeeds with what is intact or raises
``RecordingError`` (the one documented recording error) with a clear message; it never
raises anything else and never hangs. ``inspect``'s check (``check_recording``) runs on
the same damage and must agree with the replay: a recording it calls intact replays
whole, one whose replay fails is not called intact, and for an incomplete recording it
counts exactly the frames and samples the replay plays.

Both layouts are fuzzed: format version 2 (video in half-second segments) and version 1
(one ``video.mkv``, like the bundled demo).

The recording under test is a short one made here with ``Recorder`` (24 frames of
64x48 video at 12 fps and 2 s of 8 kHz audio) so that a replay takes milliseconds and
hypothesis can try many corruptions in a few seconds. ``recordings/demo.skrec`` is also
checked once, when present, to show the real bundle replays cleanly through the same
harness.

Each replay runs in a worker thread with a time limit (``REPLAY_TIMEOUT_S``); a hang
fails the test. The examples are limited to keep the test near 20 s.
"""
from __future__ import annotations

import itertools
import json
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recording import Recorder, ReplaySource
from sensekit.capture.recording_check import check_recording
from sensekit.capture.spec import open_source
from sensekit.errors import RecordingError
from tests.capture.recording_versions import to_version_1

REPO = Path(__file__).resolve().parents[1]
FILES = ("meta.json", "video.mkv", "video_ts.csv", "audio.wav", "video.ffconcat")
W, H, FPS, N_FRAMES = 64, 48, 12.0, 24
RATE, N_SAMPLES, BLOCK = 8000, 16000, 400
REPLAY_TIMEOUT_S = 20.0


def _frame(i: int) -> np.ndarray:
    img = np.zeros((H, W, 3), np.uint8)
    img[:, :, 0] = (np.arange(W) * 4 + i * 7) % 256
    img[:, :, 1] = (np.arange(H)[:, None] * 5 + i * 3) % 256
    img[10:20, (i * 2) % (W - 10):(i * 2) % (W - 10) + 10, 2] = 255
    return img


def files_of(folder: Path) -> list[str]:
    """Every file of a recording, relative to it (segments as ``video/NAME``)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


@pytest.fixture(scope="module", params=[2, 1], ids=["v2", "v1"])
def pristine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp(f"fuzz{request.param}") / "short.skrec"
    rng = np.random.default_rng(7)
    audio = (rng.standard_normal(N_SAMPLES) * 0.2).astype(np.float32)
    with Recorder(path, video=(W, H, FPS), audio=(RATE, 1), block_size=BLOCK,
                  sources=["synthetic"], start_unix=0.0, fsync=False) as rec:
        items = [VideoFrame(i, i / FPS, _frame(i)) for i in range(N_FRAMES)]
        items += [AudioBlock(k, k * BLOCK / RATE, audio[k * BLOCK:(k + 1) * BLOCK], RATE)
                  for k in range(N_SAMPLES // BLOCK)]
        for item in sorted(items, key=lambda it: (it.t, isinstance(it, AudioBlock))):
            rec.write(item)
    if request.param == 1:
        to_version_1(path)
    return path


@dataclass
class Outcome:
    frames: int = 0
    blocks: int = 0
    error: BaseException | None = None
    finished: bool = False


def replay(path: Path, *, via_spec: bool) -> Outcome:
    """Load and replay ``path`` completely in a worker thread, with a time limit."""
    out = Outcome()

    def work() -> None:
        try:
            src = open_source(f"replay:{path}") if via_spec else ReplaySource(path)
            with src:
                meta_v = src.frame_size
                for item in src:
                    if isinstance(item, VideoFrame):
                        assert item.image.dtype == np.uint8 and item.image.ndim == 3
                        assert meta_v is None or item.image.shape[1::-1] == tuple(meta_v)
                        out.frames += 1
                    else:
                        assert item.samples.dtype == np.float32
                        assert np.all(np.abs(item.samples) <= 1.0)
                        out.blocks += 1
        except BaseException as exc:  # noqa: BLE001 - classified by the caller
            out.error = exc
        out.finished = True

    thread = threading.Thread(target=work, daemon=True, name=f"replay:{path.name}")
    thread.start()
    thread.join(REPLAY_TIMEOUT_S)
    if thread.is_alive():
        pytest.fail(f"replay of a corrupted recording hung for more than {REPLAY_TIMEOUT_S} s "
                    f"({sorted(p.name for p in path.iterdir())})")
    return out


def check(path: Path, *, via_spec: bool, what: str,
          max_frames: int = N_FRAMES, max_blocks: int = -(-N_SAMPLES // BLOCK)) -> Outcome:
    out = replay(path, via_spec=via_spec)
    assert out.finished
    if out.error is not None:
        assert isinstance(out.error, RecordingError), (
            f"{what}: raised {type(out.error).__name__}: {out.error!r} "
            "(only RecordingError is allowed)")
        msg = str(out.error)
        assert msg and len(msg) < 500 and "\n" not in msg, f"{what}: unclear message {msg!r}"
        assert path.name in msg or any(f in msg for f in FILES) or "video/" in msg, \
            f"{what}: message names neither the recording nor the file: {msg!r}"
    else:  # success: only what is intact, never more than was recorded
        assert out.frames <= max_frames and out.blocks <= max_blocks, what
    agree_with_inspect(path, out, what)
    return out


def agree_with_inspect(path: Path, out: Outcome, what: str) -> None:
    """``inspect``'s check raises only ``RecordingError`` and agrees with the replay."""
    try:
        report = check_recording(path)
    except RecordingError:
        assert out.error is not None, f"{what}: inspect refused a recording that replays"
        return
    if out.error is not None:
        assert report.status != "intact", f"{what}: inspect calls intact what fails: {out.error}"
        return
    if report.status == "intact":
        assert report.video is None or out.frames == report.video.listed_frames, what
    if not report.complete:
        if report.video is not None:
            assert out.frames == report.video.playable_frames, (what, report.problems)
        if report.audio is not None:
            block = report.audio.block_size
            assert out.blocks == -(-report.audio.playable_samples // block), (what, report.problems)


def test_pristine_recording_replays_fully(pristine: Path):
    out = check(pristine, via_spec=True, what="pristine")
    assert out.error is None and (out.frames, out.blocks) == (N_FRAMES, N_SAMPLES // BLOCK)


def test_bundled_demo_replays_through_the_harness(recordings_dir: Path):
    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated yet (python -m sensekit.synth)")
    out = check(demo, via_spec=True, what="demo", max_frames=10 ** 6, max_blocks=10 ** 6)
    assert out.error is None and out.frames > 0 and out.blocks > 0


# --- corruptions ------------------------------------------------------------------------

@st.composite
def mutations(draw):
    """A list of (file, operation, parameters) applied in order."""
    ops = []
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(FILE_CHOICES))
        kind = draw(st.sampled_from(["truncate", "flip", "delete_range", "delete_file",
                                     "mark_incomplete", "meta_delete_key", "meta_set_value"]))
        a = draw(st.floats(0.0, 1.0))
        b = draw(st.floats(0.0, 1.0))
        n = draw(st.integers(1, 16))
        seed = draw(st.integers(0, 2 ** 31 - 1))
        ops.append((name, kind, a, b, n, seed))
    return ops


# Files of both layouts; a name the recording under test does not have is skipped, and
# "video/*" picks one of its segments.
FILE_CHOICES = ("meta.json", "video_ts.csv", "audio.wav", "video.mkv", "video.ffconcat",
                "video/0", "video/1", "video/-1")

ODD_VALUES = [None, -1, 0, 2 ** 40, 1e308, -0.5, "x", "../etc/passwd", [], {}, True, [1, 2]]


def _meta_paths(meta: object, prefix: tuple = ()) -> list[tuple]:
    """Every key path in a parsed meta.json (objects only)."""
    out = []
    if isinstance(meta, dict):
        for k, v in meta.items():
            out.append(prefix + (k,))
            out += _meta_paths(v, prefix + (k,))
    return out


def _edit_meta(folder: Path, kind: str, a: float, n: int) -> None:
    """Valid JSON, wrong content: delete a key or give it an odd value."""
    m = folder / "meta.json"
    try:
        meta = json.loads(m.read_text())
    except (OSError, ValueError):
        return
    paths = _meta_paths(meta)
    if not paths:
        return
    path = paths[min(len(paths) - 1, int(a * len(paths)))]
    parent = meta
    for k in path[:-1]:
        parent = parent[k]
    if kind == "meta_delete_key":
        del parent[path[-1]]
    else:
        parent[path[-1]] = ODD_VALUES[n % len(ODD_VALUES)]
    m.write_text(json.dumps(meta))


def _target(folder: Path, name: str) -> Path:
    if name.startswith("video/") and (folder / "video").is_dir():
        segments = sorted((folder / "video").glob("*.mkv"))
        if segments:
            return segments[int(name.split("/")[1]) % len(segments)]
    return folder / name


def apply(folder: Path, ops: list) -> None:
    for name, kind, a, b, n, seed in ops:
        p = _target(folder, name)
        if kind.startswith("meta_"):
            _edit_meta(folder, kind, a, n)
        elif kind == "mark_incomplete":  # what a killed recorder leaves, plus the damage
            _mark_incomplete(folder)
        elif p.exists() and kind == "delete_file":
            p.unlink()
        elif p.exists():
            p.write_bytes(bytes(_damaged(bytearray(p.read_bytes()), kind, a, b, n, seed)))


def _mark_incomplete(folder: Path) -> None:
    m = folder / "meta.json"
    try:
        meta = json.loads(m.read_text())
        meta["complete"] = False
        m.write_text(json.dumps(meta))
    except (OSError, ValueError, TypeError):
        pass


def _damaged(data: bytearray, kind: str, a: float, b: float, n: int, seed: int) -> bytearray:
    """``data`` truncated, with bits flipped, or with a range deleted (other kinds: unchanged)."""
    if kind == "truncate":
        del data[int(a * len(data)):]
    elif kind == "flip" and data:
        rng = np.random.default_rng(seed)
        for pos in rng.integers(0, len(data), size=n):
            data[pos] ^= int(rng.integers(1, 256))
    elif kind == "delete_range" and data:
        start = int(a * len(data))
        end = min(len(data), start + max(1, int(b * len(data) * 0.25)))
        del data[start:end]
    return data


_CASES = itertools.count()


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=mutations())
# found by this test: meta.json without its "audio" (or "video") key -> KeyError in ReplaySource
@example(ops=[("meta.json", "meta_delete_key", 0.0, 0.0, 1, 0)])
def test_corrupted_recordings_load_or_raise_recording_error(pristine: Path, tmp_path: Path, ops):
    folder = tmp_path / f"case{next(_CASES)}.skrec"
    shutil.copytree(pristine, folder)
    try:
        apply(folder, ops)
        check(folder, via_spec=True, what=f"mutations {ops}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


NEEDED = ("meta.json", "video_ts.csv", "audio.wav", "video.mkv", "video/0", "video/-1")


def _needed(folder: Path) -> list[str]:
    """The NEEDED names this layout has (version 1: video.mkv; version 2: segments)."""
    return [n for n in NEEDED if _target(folder, n).is_file()]


def test_each_file_missing(pristine: Path, tmp_path: Path):
    for name in _needed(pristine):
        folder = tmp_path / f"gone-{name.replace('/', '_')}.skrec"
        shutil.copytree(pristine, folder)
        p = _target(folder, name)
        p.unlink()
        out = check(folder, via_spec=False, what=f"{name} deleted")
        assert isinstance(out.error, RecordingError), name
        assert p.name in str(out.error) or ("video/" in name and "no segment file" in str(out.error))


def test_each_file_empty(pristine: Path, tmp_path: Path):
    for name in _needed(pristine):
        folder = tmp_path / f"empty-{name.replace('/', '_')}.skrec"
        shutil.copytree(pristine, folder)
        _target(folder, name).write_bytes(b"")
        out = check(folder, via_spec=False, what=f"{name} emptied")
        assert isinstance(out.error, RecordingError), f"{name} emptied replayed without error"
        if name != "meta.json":
            assert check_recording(folder).status == "damaged", name


def test_truncated_video_of_incomplete_recording_replays_what_is_intact(pristine: Path,
                                                                        tmp_path: Path):
    folder = tmp_path / "killed.skrec"
    shutil.copytree(pristine, folder)
    video = "video.mkv" if (folder / "video.mkv").exists() else "video/-1"
    apply(folder, [(video, "truncate", 0.5, 0, 1, 0), ("meta.json", "mark_incomplete",
                                                         0, 0, 1, 0)])
    out = check(folder, via_spec=False, what="half the video, incomplete")
    assert out.error is None, out.error
    assert 0 < out.frames < N_FRAMES and out.blocks == N_SAMPLES // BLOCK


@pytest.mark.parametrize("tracks", ["audio", "video"])
def test_single_track_recordings_replay(tmp_path: Path, tracks: str):
    """Valid recordings with one track (meta ``"video": null`` or ``"audio": null``)."""
    path = tmp_path / f"{tracks}_only.skrec"
    with Recorder(path, video=(W, H, FPS) if tracks == "video" else None,
                  audio=(RATE, 1) if tracks == "audio" else None, block_size=BLOCK,
                  fsync=False) as rec:
        for i in range(6):
            if tracks == "video":
                rec.write(VideoFrame(i, i / FPS, _frame(i)))
            else:
                rec.write(AudioBlock(i, i * BLOCK / RATE, np.zeros(BLOCK, np.float32), RATE))
    out = check(path, via_spec=False, what=f"{tracks}-only recording")
    assert out.error is None, f"a valid {tracks}-only recording failed: {out.error!r}"
    assert (out.frames, out.blocks) == ((6, 0) if tracks == "video" else (0, 6))
