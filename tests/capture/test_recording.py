"""The recording format: round trip, segments, crash safety, bad recordings, realtime and loop replay.

Recordings are written in format version 2 (half-second video segments); the
damaged-video tests also run on the version 1 layout (one ``video.mkv``, like the
bundled demo), made with ``recording_versions.to_version_1``.
"""
from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile

from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recording import (
    FLUSH_INTERVAL_S,
    Recorder,
    ReplaySource,
    float_to_int16,
    int16_to_float,
    read_meta,
    record_source,
)
from sensekit.clock import ManualClock
from sensekit.errors import ConfigError, RecordingError
from tests.hang_guard import returns
from tests.capture.recording_versions import to_version_1

W, H, FPS, RATE = 64, 48, 15.0, 16000


def frame_image(i: int) -> np.ndarray:
    return np.random.default_rng([7, i]).integers(0, 256, (H, W, 3), dtype=np.uint8)


def block_samples(k: int, n: int = 800, channels: int = 1) -> np.ndarray:
    ints = np.random.default_rng([8, k]).integers(-32768, 32768, (n, channels))
    s = (ints / 32768.0).astype(np.float32)
    return s[:, 0] if channels == 1 else s


def write_clip(path: Path, frames: int = 20, blocks: int = 25, *, channels: int = 1,
               audio_t0: float = 0.0, **kw) -> None:
    with Recorder(path, video=(W, H, FPS), audio=(RATE, channels), sources=["test"],
                  notes="unit test", **kw) as rec:
        items: list = [VideoFrame(i, i / FPS, frame_image(i)) for i in range(frames)]
        items += [AudioBlock(k, audio_t0 + k * 800 / RATE, block_samples(k, channels=channels), RATE)
                  for k in range(blocks)]
        for item in sorted(items, key=lambda it: it.t):
            rec.write(item)


# --- round trip ---------------------------------------------------------------------

@pytest.mark.parametrize("channels", [1, 2])
def test_round_trip_is_exact_and_interleaved(tmp_path: Path, channels: int) -> None:
    rec = tmp_path / "take.skrec"
    write_clip(rec, channels=channels, audio_t0=0.01)
    meta = read_meta(rec)
    assert meta["complete"] is True and meta["frames"] == 20 and meta["audio_samples"] == 25 * 800
    assert meta["audio"]["block_size"] == 800 and meta["audio_offset_s"] == 0.01

    items = list(ReplaySource(rec))
    frames = [i for i in items if isinstance(i, VideoFrame)]
    blocks = [i for i in items if isinstance(i, AudioBlock)]
    assert [f.index for f in frames] == list(range(20))
    for f in frames:
        assert f.t == round(f.index / FPS, 6)
        assert np.array_equal(f.image, frame_image(f.index))
    audio = np.concatenate([b.samples for b in blocks])
    expected = np.concatenate([block_samples(k, channels=channels) for k in range(25)])
    assert audio.dtype == np.float32 and np.array_equal(audio, expected)
    assert [b.t for b in blocks] == [0.01 + k * 800 / RATE for k in range(25)]
    ts = [i.t for i in items]
    assert ts == sorted(ts)
    # video first on ties: frame 3 (t=0.2) and block 4 (t=0.01+0.2) are not tied, but
    # a tie is checked below with an offset of 0.
    wav, rate = soundfile.read(rec / "audio.wav", dtype="int16", always_2d=True)
    assert rate == RATE and np.array_equal(wav, float_to_int16(expected.reshape(len(wav), channels)))


def test_video_first_on_ties(tmp_path: Path) -> None:
    rec = tmp_path / "tie.skrec"
    with Recorder(rec, video=(W, H, 10.0), audio=(1000, 1), block_size=100) as r:
        for k in range(3):
            r.write(AudioBlock(k, k * 0.1, np.zeros(100, np.float32), 1000))
        for i in range(3):
            r.write(VideoFrame(i, i * 0.1, frame_image(i)))
    kinds = [type(i).__name__ for i in ReplaySource(rec)]
    assert kinds == ["VideoFrame", "AudioBlock"] * 3


def test_dropped_audio_blocks_are_padded_with_silence(tmp_path: Path) -> None:
    rec = tmp_path / "gap.skrec"
    with Recorder(rec, audio=(1000, 1), block_size=100) as r:
        for k in (0, 1, 4, 5):                       # blocks 2 and 3 were dropped
            r.write(AudioBlock(k, k * 0.1, np.full(100, (k + 1) / 8, np.float32), 1000))
    meta = read_meta(rec)
    assert meta["audio_samples"] == 600 and meta["audio_padded_samples"] == 200
    audio = np.concatenate([b.samples for b in ReplaySource(rec)])
    expected = np.repeat(np.array([1, 2, 0, 0, 5, 6], np.float32) / 8, 100)
    assert np.array_equal(audio, expected)


def test_float_conversion_clips_and_rounds() -> None:
    x = np.array([-2.0, -1.0, -0.5, 0.0, 0.4 / 32768, 0.6 / 32768, 0.999999, 1.0, 3.0, np.nan])
    assert float_to_int16(x).tolist() == [-32768, -32768, -16384, 0, 0, 1, 32767, 32767, 32767, 0]
    ints = np.arange(-32768, 32768, 17, dtype=np.int16)
    assert np.array_equal(float_to_int16(int16_to_float(ints)), ints)


def test_meta_written_at_start_and_rewritten_on_close(tmp_path: Path) -> None:
    rec = tmp_path / "m.skrec"
    r = Recorder(rec, video=(W, H, FPS), start_unix=123.0, notes="hello")
    meta = json.loads((rec / "meta.json").read_text())
    assert meta["complete"] is False and meta["format"] == "sensekit-recording" and meta["version"] == 2
    assert (rec / "video").is_dir() and (rec / "video.ffconcat").is_file()
    r.write(VideoFrame(0, 0.0, frame_image(0)))
    r.close()
    r.close()  # idempotent
    meta = read_meta(rec)
    assert meta["complete"] is True and meta["frames"] == 1 and meta["notes"] == "hello"
    assert meta["audio"] is None and meta["start_unix"] == 123.0
    assert not list(rec.glob("*.tmp"))


def test_recorder_rejects_mismatched_items(tmp_path: Path) -> None:
    with Recorder(tmp_path / "a.skrec", video=(W, H, FPS)) as r:
        with pytest.raises(ConfigError, match=r"\(48, 64, 3\)"):
            r.write(VideoFrame(0, 0.0, np.zeros((10, 10, 3), np.uint8)))
        with pytest.raises(ConfigError, match="no audio track"):
            r.write(AudioBlock(0, 0.0, np.zeros(10, np.float32), RATE))
    with pytest.raises(RecordingError, match="already exists"):
        Recorder(tmp_path / "a.skrec", video=(W, H, FPS))
    with pytest.raises(ConfigError, match="video"):
        Recorder(tmp_path / "b.skrec", video=(0, H, FPS))


def test_record_source_from_a_replay(tmp_path: Path) -> None:
    src_path = tmp_path / "src.skrec"
    write_clip(src_path)
    copy = tmp_path / "copy.skrec"
    summary = record_source(ReplaySource(src_path), copy, seconds=1.0, progress=False)
    assert summary["interrupted"] is False
    assert summary["frames"] == 15      # t = 0 .. 14/15 < 1.0
    a = [i for i in ReplaySource(src_path) if i.t < 1.0]
    b = list(ReplaySource(copy))
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert type(x) is type(y) and x.t == y.t
        assert np.array_equal(getattr(x, "image", getattr(x, "samples", None)),
                              getattr(y, "image", getattr(y, "samples", None)))


# --- bad recordings -------------------------------------------------------------------

def test_folder_without_meta(tmp_path: Path) -> None:
    (tmp_path / "x.skrec").mkdir()
    with pytest.raises(RecordingError, match=r"recording 'x.skrec' has no meta.json \(is it a recording folder\?\)"):
        ReplaySource(tmp_path / "x.skrec")


def test_missing_recording_and_file_instead_of_folder(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="'nope.skrec' does not exist"):
        read_meta(tmp_path / "nope.skrec")
    (tmp_path / "f.skrec").write_text("hi")
    with pytest.raises(RecordingError, match="not a folder"):
        read_meta(tmp_path / "f.skrec")


@pytest.mark.parametrize("text, words", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('{"format": "other", "version": 1}', "`format`"),
    ('{"format": "sensekit-recording", "version": 99, "video": null, "audio": null}', "99"),
    ('{"format": "sensekit-recording", "version": 1, "video": {"width": -3, "height": 2, "fps": 1}, "audio": null}',
     "-3"),
    ('{"format": "sensekit-recording", "version": 1, "video": null, "audio": null}',
     "neither"),
    ('{"format": "sensekit-recording", "version": 1, "video": null}', "missing `audio`"),
])
def test_invalid_meta(tmp_path: Path, text: str, words: str) -> None:
    rec = tmp_path / "bad.skrec"
    rec.mkdir()
    (rec / "meta.json").write_text(text)
    with pytest.raises(RecordingError, match="bad.skrec/meta.json") as info:
        ReplaySource(rec)
    assert words in str(info.value)


def _segments(rec: Path) -> list[Path]:
    return sorted((rec / "video").glob("*-*.mkv"))


def _mark_incomplete(rec: Path) -> None:
    meta = json.loads((rec / "meta.json").read_text())
    meta["complete"] = False
    (rec / "meta.json").write_text(json.dumps(meta))


def test_video_is_cut_into_half_second_segments(tmp_path: Path) -> None:
    rec = tmp_path / "s.skrec"
    write_clip(rec, frames=40, blocks=10)
    # a flush at the first item at or after each half second closes a segment
    names = [p.name for p in _segments(rec)]
    bounds = [tuple(int(x) for x in n[:-4].split("-")) for n in names]
    assert bounds[0][0] == 0 and bounds[-1][1] == 39 and len(bounds) >= 5
    assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(bounds))      # they tile the frames
    assert all((last - first) / FPS <= FLUSH_INTERVAL_S + 1 / FPS for first, last in bounds)
    assert not list((rec / "video").glob("*.partial.mkv"))
    playlist = (rec / "video.ffconcat").read_text().splitlines()
    assert playlist == ["ffconcat version 1.0"] + [f"file video/{n}" for n in names]
    meta = read_meta(rec)
    assert meta["video"]["fps"] == FPS and meta["video"]["fps_from"] == "source"


def _bounds(seg: Path) -> tuple[int, int]:
    first, last = seg.name[:-4].split("-")
    return int(first), int(last)


def _halve(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _clip_with_a_halved_segment(tmp_path: Path) -> tuple[Path, Path, int, int]:
    """A 40-frame clip whose second segment is cut in half: (folder, segment, first, last)."""
    rec = tmp_path / "t.skrec"
    write_clip(rec, frames=40, blocks=10)
    seg = _segments(rec)[1]
    _halve(seg)
    return (rec, seg, *_bounds(seg))


def test_truncated_segment_in_complete_recording_names_it_and_both_counts(tmp_path: Path) -> None:
    rec, seg, first, last = _clip_with_a_halved_segment(tmp_path)
    with pytest.raises(RecordingError) as info:
        list(ReplaySource(rec))
    msg = str(info.value)
    assert f"t.skrec/video/{seg.name}" in msg and f"{last - first + 1} frames" in msg
    assert "complete" in msg


def test_damaged_segment_in_incomplete_recording_is_skipped_whole(tmp_path: Path) -> None:
    rec, _seg, first, last = _clip_with_a_halved_segment(tmp_path)
    _mark_incomplete(rec)
    src = ReplaySource(rec)
    frames = [i for i in src if isinstance(i, VideoFrame)]
    # the damaged segment is skipped; the others play with their own times and pictures
    expected = list(range(first)) + list(range(last + 1, 40))
    assert [round(f.t * FPS) for f in frames] == expected
    for f, n in zip(frames, expected):
        assert np.array_equal(f.image, frame_image(n))
    assert src.stats()["truncated_frames"] == last - first + 1


def test_missing_segment_in_complete_recording_is_refused_at_open(tmp_path: Path) -> None:
    rec = tmp_path / "g.skrec"
    write_clip(rec, frames=40, blocks=10)
    seg = _segments(rec)[1]
    first, last = _bounds(seg)
    seg.unlink()
    with pytest.raises(RecordingError, match=rf"g.skrec/video.*frames {first}-{last} have no segment"):
        ReplaySource(rec).open()


def test_truncated_video_in_complete_version_1_recording_names_both_counts(tmp_path: Path) -> None:
    rec = tmp_path / "t.skrec"
    write_clip(rec, frames=40, blocks=10)
    to_version_1(rec)
    _halve(rec / "video.mkv")
    with pytest.raises(RecordingError) as info:
        list(ReplaySource(rec))
    msg = str(info.value)
    assert "t.skrec/video.mkv" in msg and "40" in msg and "complete" in msg


def test_truncated_video_in_incomplete_version_1_recording_replays_the_intact_frames(
        tmp_path: Path) -> None:
    rec = tmp_path / "t.skrec"
    write_clip(rec, frames=40, blocks=10)
    to_version_1(rec)
    _halve(rec / "video.mkv")
    _mark_incomplete(rec)
    src = ReplaySource(rec)
    frames = [i for i in src if isinstance(i, VideoFrame)]
    assert 5 < len(frames) < 40
    for f in frames:
        assert np.array_equal(f.image, frame_image(f.index))
    assert src.stats()["truncated_frames"] == 40 - len(frames)


def test_wav_of_wrong_length(tmp_path: Path) -> None:
    rec = tmp_path / "w.skrec"
    write_clip(rec, frames=5, blocks=10)
    wav = rec / "audio.wav"
    wav.write_bytes(wav.read_bytes()[:-1000])
    with pytest.raises(RecordingError, match=r"w.skrec/audio.wav' has the wrong length.*7500.*8000"):
        ReplaySource(rec).open()


def test_missing_files_and_bad_timestamps(tmp_path: Path) -> None:
    rec = tmp_path / "m.skrec"
    write_clip(rec, frames=5, blocks=2)
    (rec / "audio.wav").unlink()
    with pytest.raises(RecordingError, match="missing its audio file 'audio.wav'"):
        ReplaySource(rec)
    rec2 = tmp_path / "ts.skrec"
    write_clip(rec2, frames=5, blocks=2)
    (rec2 / "video_ts.csv").write_text("index,t\n0,0.000000\n1,abc\n")   # row 2 as recorded (its checksum holds)
    with pytest.raises(RecordingError, match="video_ts.csv' row 3"):
        ReplaySource(rec2).open()


def test_not_a_wav(tmp_path: Path) -> None:
    rec = tmp_path / "n.skrec"
    write_clip(rec, frames=2, blocks=2)
    (rec / "audio.wav").write_bytes(b"garbage" * 10)
    with pytest.raises(RecordingError, match="'audio.wav' is not a WAV file"):
        ReplaySource(rec).open()


# --- realtime and loop --------------------------------------------------------------------

class RecordingClock(ManualClock):
    def __init__(self) -> None:
        super().__init__(100.0)
        self.targets: list[float] = []

    def sleep_until(self, t: float) -> None:
        self.targets.append(t)
        super().sleep_until(t)


def test_realtime_replay_paces_by_the_clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rec = tmp_path / "rt.skrec"
    write_clip(rec, frames=15, blocks=20)
    clock = RecordingClock()
    src = ReplaySource(rec, realtime=True, clock=clock)
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)
    items = returns(list, src, what="a replay on a manual clock")
    assert slept == []                                 # nothing really slept
    assert clock.targets == [100.0 + i.t for i in items]
    assert clock.now() == pytest.approx(100.0 + items[-1].t)


def test_realtime_read_timeout_returns_none_until_due(tmp_path: Path) -> None:
    rec = tmp_path / "rt.skrec"
    write_clip(rec, frames=3, blocks=0)
    clock = ManualClock()
    src = ReplaySource(rec, realtime=True, clock=clock)
    assert src.read(timeout=0.0).index == 0            # t = 0 is due at once
    assert src.read(timeout=0.0) is None               # frame 1 is due at 1/15 s
    clock.advance(0.07)
    assert src.read(timeout=0.0).index == 1


def test_loop_keeps_time_and_index_increasing(tmp_path: Path) -> None:
    rec = tmp_path / "loop.skrec"
    write_clip(rec, frames=6, blocks=8)               # 0.4 s of video, 0.4 s of audio
    src = ReplaySource(rec, loop=True)
    first = list(ReplaySource(rec))
    items = [src.read() for _ in range(3 * len(first))]
    length = src.duration_s
    src.close()
    ts = [i.t for i in items]
    assert ts == sorted(ts)
    frames = [i for i in items if isinstance(i, VideoFrame)]
    assert [f.index for f in frames] == list(range(len(frames)))
    assert length == pytest.approx(0.4)
    for k, item in enumerate(items):
        base = first[k % len(first)]
        assert item.t == pytest.approx(base.t + (k // len(first)) * length)
        data = item.image if isinstance(item, VideoFrame) else item.samples
        ref = base.image if isinstance(base, VideoFrame) else base.samples
        assert np.array_equal(data, ref)


# --- crash safety ---------------------------------------------------------------------------

KILL_SCRIPT = r"""
import sys, time
import numpy as np
sys.path.insert(0, sys.argv[2])
from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recording import Recorder
from tests.capture.test_recording import frame_image, block_samples, W, H, FPS, RATE
rec = Recorder(sys.argv[1], video=(W, H, FPS), audio=(RATE, 1))
t0 = time.monotonic()
i = k = 0
while True:
    now = time.monotonic() - t0
    while i / FPS <= now:
        rec.write(VideoFrame(i, i / FPS, frame_image(i))); i += 1
    while k * 800 / RATE <= now:
        rec.write(AudioBlock(k, k * 800 / RATE, block_samples(k), RATE)); k += 1
    time.sleep(0.005)
"""


def test_sigkill_leaves_a_replayable_recording(tmp_path: Path) -> None:
    """A Recorder killed mid-flush-interval keeps every frame and sample older than about 1 s."""
    rec = tmp_path / "killed.skrec"
    env = dict(os.environ, OPENCV_FFMPEG_LOGLEVEL="-8")
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, str(rec), str(repo)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if json.loads((rec / "meta.json").read_text()).get("frames", 0) >= 30:
                    break
            except (OSError, ValueError):
                pass
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.05)
        time.sleep(0.5)                                   # kill mid-second, ~2.5-3 s in
        proc.send_signal(signal.SIGKILL)
        killed_at = time.time()
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    meta = read_meta(rec)
    assert meta["complete"] is False
    t_kill = killed_at - meta["start_unix"]           # in recording time (an upper bound)
    src = ReplaySource(rec)
    items = list(src)
    frames = [i for i in items if isinstance(i, VideoFrame)]
    blocks = [i for i in items if isinstance(i, AudioBlock)]
    assert len(frames) >= 15 and frames[-1].t >= t_kill - 1.0 - 2 / FPS - 0.2
    for f in frames:
        assert f.t == round(f.index / FPS, 6)
        assert np.array_equal(f.image, frame_image(f.index))
    audio = np.concatenate([b.samples for b in blocks])
    assert len(audio) >= RATE and len(audio) / RATE >= t_kill - 1.0 - 0.2
    n_blocks = -(-len(audio) // 800)
    expected = np.concatenate([block_samples(k) for k in range(n_blocks)])[: len(audio)]
    assert np.array_equal(audio, expected)
    # ordinary tools read the WAV up to its last flushed second
    data, rate = soundfile.read(rec / "audio.wav", dtype="int16")
    assert rate == RATE and len(data) == len(audio)


@pytest.mark.parametrize("version, said", [
    (3, "'new.skrec/meta.json': `version` 3 is newer than this sensekit reads (1, 2): "
        "update sensekit to replay it"),
    (0, "'new.skrec/meta.json': unknown `version` 0 (sensekit writes 1, 2; is meta.json damaged?)"),
    ("2", "'new.skrec/meta.json': unknown `version` '2' (sensekit writes 1, 2; is meta.json damaged?)"),
    (None, "'new.skrec/meta.json': missing `version` (sensekit writes 1, 2; is meta.json damaged?)"),
])
def test_a_recording_from_another_version_says_what_to_do(tmp_path: Path, version: object,
                                                          said: str) -> None:
    # it said "unsupported `version` 3 (this sensekit reads 1, 2)" for every case, and
    # "unsupported `version` None" for a meta.json without one: no word of the fix
    rec = tmp_path / "new.skrec"
    rec.mkdir()
    meta = {"format": "sensekit-recording", "video": None, "audio": None}
    if version is not None:
        meta["version"] = version
    (rec / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(RecordingError) as info:
        read_meta(rec)
    assert str(info.value) == said
