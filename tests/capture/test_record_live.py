"""Acceptance: a recording made from an MJPEG stream plus the ALSA file microphone replays
the same frames (exactly) and the same samples.

How it works:

- The test serves a known frame sequence over HTTP on 127.0.0.1 (``MjpegServer``;
  every frame carries its number in black/white cells and a fixed noise texture, so
  exact equality means something) and writes a known int16 clip for the ALSA file
  microphone (``FileMic``).
- A subprocess (PortAudio reads the ALSA config when it starts, so it needs the fake
  mic's environment) runs the real CLI, ``sensekit record OUT --camera URL --mic
  default --seconds S``, through ``sensekit.cli.main``, with two test-only hooks:

  * ``Tap`` wraps the source the command builds and keeps every item it *delivers* to
    the recorder; the subprocess saves them next to the recording.
  * ``ClipMic`` replaces ``MicrophoneSource`` for the run. The file plugin is not paced
    (it delivers ~30 M samples/s and burns a core), so after the clip it only repeats
    stale buffer contents and a bounded queue quickly loses the clip. ``ClipMic`` is the
    real ``MicrophoneSource`` (device lookup, PortAudio stream, callback, queue, int16
    -> float32, sample-clock ``t``) that reads the clip's length (plus a few blocks)
    right after opening, with a queue big enough to hold it, then stops the device and
    hands those blocks out; after them it ends. The CLI has no queue-size option, which
    is why the hook is needed.

- The test process replays the recording with ``ReplaySource`` and compares it with
  what was delivered: every frame bit-exact, in order, same count; the samples exactly
  (int16 round trip), containing the known clip; the timestamps to 1 us. Two runs of
  ``sensekit events REC --jsonl --records`` give byte-identical output whose checksums
  are those of the delivered data.
- ``sensekit record`` bad input through the CLI: ``--seconds -1``, a stream URL on a
  closed port and a camera index that does not exist each exit 2 with one plain line
  naming the value.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sensekit.capture.base import AudioBlock, Item, Source, VideoFrame
from sensekit.capture.microphone import MicrophoneSource
from sensekit.errors import SourceError
from tests.capture.alsa_filemic import FileMic, known_samples, locate, unavailable_reason

REPO = Path(__file__).resolve().parents[2]
RATE = 16000                 # the fake device's rate; PortAudio reports it as the default
BLOCK = 512                  # MicrophoneSource's default block size
CLIP_S = 1.0                 # the known clip; shorter than the recording
RECORD_S = 2.0
SIZE = (160, 120)            # (width, height) of the MJPEG stream
FPS = 15.0
BITS = 12                    # frame number cells across the top of each frame
CELL = 10

# --- the known frame sequence served over MJPEG ---------------------------------------

_TEXTURE = np.random.default_rng(77).integers(0, 256, (SIZE[1], SIZE[0], 3), dtype=np.uint8)


def numbered_frame(n: int, size: tuple[int, int] = SIZE) -> np.ndarray:
    """A noisy textured frame with ``n`` in binary in black/white cells on a grey strip."""
    w, h = size
    img = _TEXTURE[:h, :w].copy()
    img[: CELL + 4] = 128
    for b in range(BITS):
        x = 2 + b * (CELL + 2)
        img[2:2 + CELL, x:x + CELL] = 255 if (n >> b) & 1 else 0
    return img


def frame_number(img: np.ndarray) -> int:
    """Read back ``numbered_frame``'s number from a decoded (JPEG-lossy) frame."""
    n = 0
    for b in range(BITS):
        x = 2 + b * (CELL + 2)
        if img[4:CELL, x + 2:x + CELL - 2].mean() > 128:
            n |= 1 << b
    return n


# --- test-only hooks used inside the recording subprocess -------------------------------

def _forward(name: str) -> property:
    return property(lambda self: getattr(self.inner, name))


class Tap(Source):
    """A transparent wrapper that keeps every item the wrapped source delivers."""

    kind = _forward("kind")
    is_live = _forward("is_live")
    has_video = _forward("has_video")
    has_audio = _forward("has_audio")
    frame_size = _forward("frame_size")
    fps = _forward("fps")
    sample_rate = _forward("sample_rate")
    channels = _forward("channels")
    description = _forward("description")

    def __init__(self, inner: Source) -> None:
        self.inner = inner
        self.items: list[Item] = []

    def __getattr__(self, name: str) -> Any:     # started_at, gain, block_size, ...
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def open(self) -> None:
        self.inner.open()

    def close(self) -> None:
        self.inner.close()

    def read(self, timeout: float | None = None) -> Item | None:
        item = self.inner.read(timeout)
        if item is not None:
            self.items.append(item)
        return item

    def poll_status(self) -> list[Any]:
        return self.inner.poll_status()

    def stats(self) -> dict[str, Any]:
        return self.inner.stats()

    def dump(self, folder: Path) -> None:
        """``delivered_frames.npy`` (N,H,W,3), ``delivered_audio.npy`` and ``delivered.json``."""
        frames = [i for i in self.items if isinstance(i, VideoFrame)]
        blocks = [i for i in self.items if isinstance(i, AudioBlock)]
        if frames:
            np.save(folder / "delivered_frames.npy", np.stack([f.image for f in frames]))
        if blocks:
            np.save(folder / "delivered_audio.npy", np.concatenate([b.samples for b in blocks]))
        audio = getattr(self.inner, "audio", None)
        (folder / "delivered.json").write_text(json.dumps({
            "order": ["v" if isinstance(i, VideoFrame) else "a" for i in self.items],
            "frames": [[f.index, f.t] for f in frames],
            "blocks": [[b.index, b.t, len(b.samples), str(b.samples.dtype)] for b in blocks],
            "description": self.description,
            "audio_class": type(audio).__name__,
            "mic_stats_at_cut": getattr(audio, "stats_at_cut", None),
            "stats": self.stats(),
        }, default=str))


class ClipMic(MicrophoneSource):
    """``MicrophoneSource`` on the unpaced file device: read ``limit`` samples, then end.

    Opens the real stream with a queue that holds the whole clip, reads ``limit``
    samples' worth of blocks at once (the device fills the queue in milliseconds),
    closes the device (so it stops burning a core) and delivers those blocks; after
    them ``read`` raises ``EOFError``. Block ``t``, ``index`` and ``captured_at`` are
    the real source's.
    """

    limit = int(RATE * CLIP_S) + 4 * BLOCK       # the clip plus a few blocks of margin

    def __init__(self, device: int | str | None = None, **options: Any) -> None:
        options.setdefault("max_queued_blocks", self.limit // BLOCK + 32768)
        super().__init__(device, **options)
        self._clip: deque[AudioBlock] = deque()
        self.stats_at_cut: dict[str, Any] | None = None

    def open(self) -> None:
        if self._opened:
            return
        super().open()
        blocks, n = [], 0
        while n < self.limit:
            block = super().read(timeout=5.0)
            if block is None:
                super().close()
                raise SourceError(
                    f"the file microphone delivered nothing for 5 s after {n} samples")
            blocks.append(block)
            n += len(block.samples)
        self.stats_at_cut = super().stats()
        super().close()
        self._clip = deque(blocks)

    def read(self, timeout: float | None = None) -> AudioBlock | None:
        if self._clip:
            return self._clip.popleft()
        raise EOFError(f"{self.description}: the clip has been delivered")


RECORD_DRIVER = r"""
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import sensekit.capture.microphone as microphone
import sensekit.cli.record as record_cli
from sensekit.cli import main
from tests.capture.test_record_live import ClipMic, Tap

out, url, seconds = Path(sys.argv[2]), sys.argv[3], sys.argv[4]
microphone.MicrophoneSource = ClipMic        # spec.open_source looks it up at call time
build_source, taps = record_cli.build_source, []
def tapped(args):
    taps.append(Tap(build_source(args)))
    return taps[0]
record_cli.build_source = tapped
code = main(["record", str(out), "--camera", url, "--mic", "default", "--seconds", seconds])
if taps:
    taps[0].dump(out.parent)
sys.exit(code)
"""


# --- the live recording, made once for the module ------------------------------------------

_reason = unavailable_reason()


def _cli() -> list[str]:
    script = Path(sys.executable).with_name("sensekit")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "sensekit"]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if _reason is not None:
        pytest.skip(f"ALSA file microphone: {_reason}")
    from tests.capture.mjpeg_server import MjpegServer

    folder = tmp_path_factory.mktemp("live")
    clip = known_samples(int(RATE * CLIP_S), seed=2024)
    mic = FileMic(folder / "mic", clip, RATE)
    out = folder / "live.skrec"
    started = time.monotonic()
    with MjpegServer(size=SIZE, fps=FPS, make_frame=numbered_frame) as server:
        proc = subprocess.run([sys.executable, "-c", RECORD_DRIVER, str(REPO), str(out), server.url,
                               str(RECORD_S)],
                              env=dict(mic.env, PYGAME_HIDE_SUPPORT_PROMPT="1"), cwd=str(folder),
                              capture_output=True, text=True, timeout=60)
        url, served = server.url, server.frames_sent
    took = time.monotonic() - started
    assert proc.returncode == 0, (
        f"sensekit record failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    info = json.loads((folder / "delivered.json").read_text())
    return {"folder": folder, "rec": out, "clip": clip, "url": url, "served": served,
            "stderr": proc.stderr, "stdout": proc.stdout, "took": took, "info": info,
            "frames": np.load(folder / "delivered_frames.npy"),
            "audio": np.load(folder / "delivered_audio.npy")}


def _written(live: dict[str, Any]) -> tuple[int, int]:
    """Delivered frames and samples the recorder was expected to write.

    ``record_source`` writes every item it reads, including the one read when
    ``--seconds`` ran out, so nothing delivered may be missing.
    """
    from sensekit.capture.recording import read_meta

    meta = read_meta(live["rec"])
    info = live["info"]
    n_frames, n_samples = len(info["frames"]), sum(b[2] for b in info["blocks"])
    assert (meta["frames"], meta["audio_samples"]) == (n_frames, n_samples), (
        f"recorded {meta['frames']} frames / {meta['audio_samples']} samples, delivered "
        f"{len(info['frames'])} / {sum(b[2] for b in info['blocks'])} "
        f"(last item {info['order'][-1]})")
    return n_frames, n_samples


def test_the_cli_recorded_the_stream_and_the_fake_microphone(live: dict[str, Any]) -> None:
    from sensekit.capture.recording import read_meta

    info = live["info"]
    # the hooks really were in the path: the CLI built camera(URL)+mic and ClipMic read the clip
    assert info["audio_class"] == "ClipMic"
    assert info["description"] == f"camera:{live['url']}+mic:default"
    meta = read_meta(live["rec"])
    assert meta["complete"] is True
    assert meta["sources"] == [info["description"]]
    assert (meta["video"]["width"], meta["video"]["height"]) == SIZE
    assert meta["audio"]["sample_rate"] == RATE and meta["audio"]["channels"] == 1
    assert meta["audio"]["block_size"] == BLOCK
    assert meta["audio_padded_samples"] == 0
    # the clip was read before the queue could drop anything: block indices 0, 1, 2, ...
    assert [b[0] for b in info["blocks"]] == list(range(len(info["blocks"])))
    assert info["mic_stats_at_cut"]["dropped_blocks"] == 0
    assert {b[3] for b in info["blocks"]} == {"float32"}
    assert sum(b[2] for b in info["blocks"]) >= ClipMic.limit
    # the frames are the stream's, newest first: their numbers only go up
    numbers = [frame_number(f) for f in live["frames"]]
    assert numbers == sorted(set(numbers)), numbers
    assert numbers[-1] < live["served"]
    assert len(numbers) >= 8, (
        f"only {len(numbers)} frames in {RECORD_S} s ({live['took']:.1f} s run)")
    frames, samples = _written(live)
    assert f"{frames} frames, {samples} audio samples" in live["stdout"]


def test_what_the_live_sources_lost_is_in_meta_and_the_last_line(live: dict[str, Any]) -> None:
    """The camera's dropped frames and the microphone's dropped blocks, overflows and
    underflows (``source.stats()`` when the recording closed) are kept in ``meta.json``
    and said in the command's last line: they were only in the source's stats."""
    from sensekit.capture.base import DROP_COUNTERS, drops_text
    from sensekit.capture.recording import read_meta

    stats = live["info"]["stats"]
    drops = read_meta(live["rec"])["source_drops"]
    assert set(drops) == set(DROP_COUNTERS)
    assert drops == {k: stats[k] for k in DROP_COUNTERS}
    last = live["stdout"].strip().splitlines()[-1]
    assert last.endswith(f"audio samples{drops_text(drops)}"), last
    if any(drops.values()):
        assert "; lost: " in last


def test_replay_gives_the_delivered_frames_exactly(live: dict[str, Any]) -> None:
    from sensekit.capture.recording import ReplaySource

    n_frames, _ = _written(live)
    info = live["info"]
    t0 = (info["frames"][0][1] if info["order"][0] == "v" else info["blocks"][0][1])
    delivered = live["frames"][:n_frames]
    with ReplaySource(live["rec"]) as replay:
        frames = [i for i in replay if isinstance(i, VideoFrame)]
    assert len(frames) == n_frames
    for k, (want, got) in enumerate(zip(delivered, frames)):
        assert got.image.dtype == np.uint8 and got.image.shape == want.shape
        assert np.array_equal(got.image, want), (
            f"frame {k}: {int((got.image != want).sum())} values differ")
        assert got.index == k
        assert got.t == pytest.approx(info["frames"][k][1] - t0, abs=1.01e-6)


def test_replay_gives_the_delivered_samples_and_the_known_clip(live: dict[str, Any]) -> None:
    from sensekit.capture.recording import ReplaySource, float_to_int16, read_meta

    _, n_samples = _written(live)
    info = live["info"]
    t0 = (info["frames"][0][1] if info["order"][0] == "v" else info["blocks"][0][1])
    delivered = live["audio"][:n_samples]
    with ReplaySource(live["rec"]) as replay:
        blocks = [i for i in replay if isinstance(i, AudioBlock)]
    got = np.concatenate([b.samples for b in blocks])
    assert got.dtype == np.float32 and delivered.dtype == np.float32
    # the microphone's float32 is int16 / 32768, so the WAV round trip is exact
    assert np.array_equal(float_to_int16(delivered).astype(np.float32) / 32768, delivered)
    assert np.array_equal(float_to_int16(got), float_to_int16(delivered))
    assert np.array_equal(got, delivered)
    # ... and it is the device's clip, in order
    offset = locate(float_to_int16(got), live["clip"])
    assert offset >= 0, "the known clip is not in the replayed audio"
    assert offset + len(live["clip"]) <= n_samples
    # blocks keep the sample clock: replayed t is the delivered t on the recording's base
    meta = read_meta(live["rec"])
    assert [len(b.samples) for b in blocks[:-1]] == [BLOCK] * (len(blocks) - 1)
    assert meta["audio_offset_s"] == pytest.approx(info["blocks"][0][1] - t0, abs=1.01e-6)
    for b, (_, t, _, _) in zip(blocks, info["blocks"]):
        assert b.t == pytest.approx(t - t0, abs=2e-6)


def test_events_of_the_replay_are_byte_identical_twice(live: dict[str, Any]) -> None:
    from sensekit.runner import checksum

    n_frames, n_samples = _written(live)
    cmd = _cli() + ["events", str(live["rec"]), "--jsonl", "--records"]
    runs = [subprocess.run(cmd, capture_output=True, timeout=60, cwd=str(live["folder"]))
            for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr.decode(errors="replace")[-2000:]
    assert runs[0].stdout == runs[1].stdout
    records = [json.loads(line) for line in runs[0].stdout.decode().splitlines()]
    frames = [r for r in records if r["event"] == "frame"]
    blocks = [r for r in records if r["event"] == "audio_block"]
    assert [r["checksum"] for r in frames] == [checksum(f) for f in live["frames"][:n_frames]]
    audio = live["audio"][:n_samples]
    assert [r["checksum"] for r in blocks] == [checksum(audio[i:i + BLOCK])
                                               for i in range(0, n_samples, BLOCK)]
    assert [r["t"] for r in records] == sorted(r["t"] for r in records)


# --- bad input through the CLI -----------------------------------------------------------

def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/stream.mjpg"


@pytest.mark.parametrize("case, status", [("negative seconds", 2), ("closed port", 75),
                                          ("missing camera index", 75)])
def test_record_bad_input_is_one_plain_line_and_its_status(case: str, status: int, tmp_path: Path) -> None:
    """A wrong setting is 2; a device not there yet (a stream not answering, no camera 57) is 75,
    EX_TEMPFAIL, so a unit tries again later (docs/installations.md, exit codes)."""
    out = tmp_path / "bad.skrec"
    if case == "negative seconds":
        args, needle = ["--camera", "0", "--seconds", "-1"], "-1"
    elif case == "closed port":
        url = _closed_port_url()
        args, needle = ["--camera", url, "--seconds", "1"], url
    else:
        args, needle = ["--camera", "57", "--seconds", "1"], "57"
    r = subprocess.run(_cli() + ["record", str(out)] + args, capture_output=True, text=True,
                       timeout=60, cwd=str(tmp_path), env=dict(os.environ, PYTHONUNBUFFERED="1"))
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert r.returncode == status, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    assert len(lines) == 1 and lines[0].startswith("sensekit: error: "), r.stderr
    assert needle in lines[0], lines[0]
    assert r.stdout == ""
    assert not out.exists(), "a failed record left a recording folder behind"
