"""MediaFileSource on small files made here: audio files, a video, a video with an audio track."""
from __future__ import annotations

import shutil
import subprocess
import time

import cv2
import numpy as np
import pytest
import soundfile as sf

from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.media import MediaFileSource
from sensekit.clock import ManualClock, MonotonicClock
from sensekit.errors import SourceError
from tests.hang_guard import returns

RATE = 16000


def _tone(n: int, channels: int = 1) -> np.ndarray:
    rng = np.random.default_rng(7)
    x = rng.integers(-20000, 20000, size=(n, channels), dtype=np.int16)
    return x[:, 0] if channels == 1 else x


@pytest.fixture(scope="module")
def video_path(tmp_path_factory) -> str:
    """10 frames at 10 fps, 32x24, frame i filled with value 25*i (MJPG: lossy)."""
    path = str(tmp_path_factory.mktemp("media") / "clip.avi")
    w = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (32, 24))
    for i in range(10):
        w.write(np.full((24, 32, 3), 25 * i, np.uint8))
    w.release()
    return path


@pytest.mark.parametrize("fmt,subtype", [("WAV", "PCM_16"), ("FLAC", "PCM_16"), ("OGG", "VORBIS")])
def test_audio_file_in_blocks_of_512(tmp_path, fmt, subtype):
    samples = _tone(3000)
    path = tmp_path / f"a.{fmt.lower()}"
    sf.write(path, samples, RATE, format=fmt, subtype=subtype)
    with MediaFileSource(path) as src:
        assert src.has_audio and not src.has_video and not src.is_live
        assert src.sample_rate == RATE and src.channels == 1
        blocks = list(src)
        with pytest.raises(EOFError):
            src.read()
    assert all(isinstance(b, AudioBlock) and b.samples.dtype == np.float32 for b in blocks)
    assert [len(b.samples) for b in blocks] == [512] * 5 + [3000 - 5 * 512]
    assert [b.t for b in blocks] == pytest.approx([i * 512 / RATE for i in range(6)])
    assert [b.index for b in blocks] == list(range(6))
    got = np.concatenate([b.samples for b in blocks])
    if subtype == "PCM_16":    # lossless: the exact int16 values / 32768
        assert np.array_equal(got, samples.astype(np.float32) / 32768)
    else:
        assert len(got) == 3000


def test_stereo_audio_blocks_are_n_by_channels(tmp_path):
    path = tmp_path / "st.wav"
    sf.write(path, _tone(1000, channels=2), RATE, subtype="PCM_16")
    with MediaFileSource(path, block_size=256) as src:
        blocks = list(src)
    assert src.channels == 2
    assert blocks[0].samples.shape == (256, 2) and blocks[-1].samples.shape == (1000 - 3 * 256, 2)


def test_video_frames_with_t_from_index(video_path):
    with MediaFileSource(video_path, audio_track=False) as src:
        assert src.has_video and not src.has_audio
        assert src.frame_size == (32, 24) and src.fps == pytest.approx(10.0)
        frames = list(src)
    assert [f.index for f in frames] == list(range(10))
    assert [f.t for f in frames] == pytest.approx([i / 10 for i in range(10)])
    assert all(f.image.shape == (24, 32, 3) and f.captured_at is None for f in frames)
    means = [f.image.mean() for f in frames]
    assert means == pytest.approx([25 * i for i in range(10)], abs=3)


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="needs the ffmpeg CLI to make the clip")
def test_video_with_audio_track_interleaved_by_time(tmp_path, video_path):
    wav = tmp_path / "track.wav"
    samples = _tone(RATE)                       # 1 s, like the 10 frames
    sf.write(wav, samples, RATE, subtype="PCM_16")
    out = str(tmp_path / "av.mkv")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", video_path, "-i", str(wav),
                    "-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", "pcm_s16le", out],
                   check=True, timeout=60)
    with MediaFileSource(out) as src:
        assert src.has_video and src.has_audio
        assert src.sample_rate == RATE and src.channels == 1
        assert src.audio_decoder in ("opencv", "ffmpeg")
        items = list(src)
    ts = [i.t for i in items]
    assert ts == sorted(ts)
    frames = [i for i in items if isinstance(i, VideoFrame)]
    blocks = [i for i in items if isinstance(i, AudioBlock)]
    assert len(frames) == 10
    got = np.concatenate([b.samples for b in blocks])
    assert np.array_equal(got[:RATE], samples.astype(np.float32) / 32768)
    # both kinds really alternate rather than one after the other
    kinds = [type(i).__name__ for i in items]
    assert kinds.index("VideoFrame") < kinds.index("AudioBlock") < len(kinds) - 1
    assert any(isinstance(items[k], VideoFrame) for k in range(len(items) // 2, len(items)))


def test_realtime_waits_on_the_clock(tmp_path):
    path = tmp_path / "a.wav"
    sf.write(path, _tone(RATE), RATE, subtype="PCM_16")      # 1 s = 32 blocks
    clock = ManualClock()
    with MediaFileSource(path, realtime=True, clock=clock) as src:
        seen = []
        for item in src:
            seen.append((item.t, clock.now()))
    assert all(now == pytest.approx(t) for t, now in seen)
    assert clock.now() == pytest.approx(31 * 512 / RATE)


def test_realtime_with_the_wall_clock_takes_the_natural_duration(video_path, monkeypatch):
    waits: list[float] = []

    class WatchedClock(MonotonicClock):          # the wall clock the source makes, its waits noted
        def sleep_until(self, t: float) -> None:
            waits.append(t)
            super().sleep_until(t)

    monkeypatch.setattr("sensekit.capture.media.MonotonicClock", WatchedClock)
    t0 = time.monotonic()
    with MediaFileSource(video_path, realtime=True, audio_track=False) as src:
        items = returns(list, src, what="a 10-frame video replayed in real time")
    elapsed = time.monotonic() - t0
    assert len(items) == 10
    assert waits == [item.t for item in items]   # each frame waited for its own time, nothing else
    assert waits[-1] == pytest.approx(0.9) and elapsed > 0.85      # the last frame is due at 0.9 s


def test_realtime_read_timeout_returns_none_before_the_item_is_due(tmp_path):
    path = tmp_path / "a.wav"
    sf.write(path, _tone(2048), RATE, subtype="PCM_16")
    clock = ManualClock()
    with MediaFileSource(path, realtime=True, clock=clock) as src:
        assert src.read(timeout=0).t == 0.0
        assert src.read(timeout=0.01) is None           # next block is due at 0.032 s
        assert clock.now() == pytest.approx(0.01)
        assert src.read(timeout=1.0).t == pytest.approx(512 / RATE)


def test_fast_mode_does_not_wait(tmp_path, monkeypatch):
    path = tmp_path / "long.wav"
    sf.write(path, _tone(RATE * 20), RATE, subtype="PCM_16")   # 20 s of audio
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)
    with MediaFileSource(path) as src:
        n = returns(lambda: sum(1 for _ in src), what="reading 20 s of audio in fast mode")
    assert n == -(-RATE * 20 // 512) and slept == [] and src.clock is None    # no clock, no wait


def test_missing_file_names_the_path(tmp_path):
    with pytest.raises(SourceError, match="media file not found: .*nope.wav"):
        MediaFileSource(tmp_path / "nope.wav").open()


def test_zero_byte_file_names_the_path(tmp_path):
    path = tmp_path / "empty.mp4"
    path.write_bytes(b"")
    with pytest.raises(SourceError, match=r"empty \(0 bytes\).*empty.mp4"):
        MediaFileSource(path).open()


def test_unreadable_file_names_the_path(tmp_path):
    path = tmp_path / "junk.avi"
    path.write_bytes(np.random.default_rng(1).integers(0, 256, 5000, dtype=np.uint8).tobytes())
    with pytest.raises(SourceError, match="cannot read media file .*junk.avi"):
        MediaFileSource(path).open()


def test_audio_file_without_samples_is_a_clear_error(tmp_path):
    path = tmp_path / "silent.wav"
    sf.write(path, np.zeros(0, np.int16), RATE, subtype="PCM_16")
    with pytest.raises(SourceError, match=r"audio file '.*silent.wav' is empty \(0 samples\)"):
        MediaFileSource(path).open()


def test_directory_is_not_a_media_file(tmp_path):
    with pytest.raises(SourceError, match="not a file"):
        MediaFileSource(tmp_path).open()


def test_truncated_video_plays_what_decodes(tmp_path):
    # FFV1 in MKV, the lossless format recordings use; cut off after 60 % of its bytes
    full = tmp_path / "full.mkv"
    w = cv2.VideoWriter(str(full), cv2.VideoWriter_fourcc(*"FFV1"), 10.0, (32, 24))
    rng = np.random.default_rng(3)
    for _ in range(20):
        w.write(rng.integers(0, 256, (24, 32, 3), dtype=np.uint8))
    w.release()
    data = full.read_bytes()
    cut = tmp_path / "cut.mkv"
    cut.write_bytes(data[: len(data) * 6 // 10])
    with MediaFileSource(cut) as src:
        frames = list(src)
    assert 5 <= len(frames) < 20
    assert [f.index for f in frames] == list(range(len(frames)))


# --- two files as one CombinedSource (strict time order) ------------------------

def test_combined_files_merge_strictly_by_time(tmp_path, video_path):
    from sensekit.capture.base import merge_by_time
    from sensekit.capture.combined import CombinedSource

    wav = tmp_path / "a.wav"
    sf.write(wav, _tone(RATE), RATE, subtype="PCM_16")
    with MediaFileSource(video_path, audio_track=False) as v, MediaFileSource(wav) as a:
        expected = [(type(i).__name__, i.index, i.t) for i in merge_by_time(v, a)]
    combined = CombinedSource(MediaFileSource(video_path, audio_track=False), MediaFileSource(wav))
    with combined:
        assert combined.has_video and combined.has_audio and not combined.is_live
        assert combined.frame_size == (32, 24) and combined.sample_rate == RATE
        got = [(type(i).__name__, i.index, i.t) for i in combined]
        stats = combined.stats()
    assert got == expected
    assert stats["video"]["frames"] == 10 and stats["audio"]["blocks"] == 32
    assert combined.description == "file:clip.avi+file:a.wav"


def test_combined_needs_at_least_one_part():
    from sensekit.capture.combined import CombinedSource
    from sensekit.errors import ConfigError

    with pytest.raises(ConfigError, match="got neither"):
        CombinedSource(None, None)
