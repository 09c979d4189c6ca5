"""The fuzz suite of issue 21: every parser that takes bytes from a file, the network or the
command line, fed by hypothesis (``derandomize=True``: the same cases every run, so a failure
reproduces). Each target calls the parsing function directly (no subprocess, no socket) and
checks, per case:

- only the documented clear error is raised (``ValueError`` for OSC datagrams, ``RecordingError``
  for recording files, ``ConfigError`` for profiles, ``--set`` values and panel bodies; none at
  all for OSC control messages and WebSocket messages, which are counted or ignored), with a
  one-line message;
- no hang: a per-case time limit (``CASE_LIMIT_S``, a real-time interval timer that interrupts
  the case);
- bounded memory: the peak of Python allocations in a case (``tracemalloc``) stays under
  ``CASE_MEMORY_BYTES``.

``SENSEKIT_FUZZ_CASES`` sets the cases per target (default 10,000; CI runs the default). On this
machine the suite takes about a minute.
"""
from __future__ import annotations

import json
import logging
import math
import os
import resource
import signal
import shutil
import struct
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sensekit.capture.checksums import VIDEO_CRC_HEADER, read_checksums
from sensekit.capture.recording_meta import read_meta, read_timestamps
from sensekit.errors import ConfigError, RecordingError
from tests.fuzz_mutate import mutate_bytes, mutate_text

CASES = int(os.environ.get("SENSEKIT_FUZZ_CASES", "10000"))
BATCH = 25                      # cases per hypothesis example (cheap targets, few examples)
CASE_LIMIT_S = 2.0
MEMORY_LIMIT_BYTES = 64 << 20   # growth of the process's peak RSS over a whole target

FUZZ = settings(max_examples=max(1, CASES // BATCH), derandomize=True, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))
SEEDS = st.integers(0, 2 ** 32 - 1)


class CaseHung(BaseException):
    """A case ran past ``CASE_LIMIT_S`` (a BaseException: no ``except Exception`` swallows it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise CaseHung(f"a case ran for more than {CASE_LIMIT_S} s")


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@pytest.fixture(scope="module", autouse=True)
def alarm() -> Iterator[None]:
    old = signal.signal(signal.SIGALRM, _alarm)
    yield
    signal.signal(signal.SIGALRM, old)


class _FormatAndDrop(logging.Filter):
    """On every sensekit logger: formats each record (one that cannot be formatted, or spans
    lines, is noted and fails the target) and drops it, so pytest's capture does not hold
    20,000 warnings a target (with their arguments) in memory."""

    bad: ClassVar[list[str]] = []

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception as exc:  # noqa: BLE001 - any formatting failure is the finding
            self.bad.append(f"cannot format {record.msg!r}: {exc!r}")
            return False
        if "\n" in text or "\r" in text:
            self.bad.append(text[:300])
        return False


@pytest.fixture(scope="module", autouse=True)
def quiet_logs() -> Iterator[None]:
    import sensekit.capture.replay
    import sensekit.osc.control  # noqa: F401

    flt = _FormatAndDrop()
    loggers = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)
               if name == "sensekit" or name.startswith("sensekit.")]
    for lg in loggers:
        lg.addFilter(flt)
    yield
    for lg in loggers:
        lg.removeFilter(flt)


@pytest.fixture(autouse=True)
def memory() -> Iterator[None]:
    """No case may push the process's peak RSS up by more than ``MEMORY_LIMIT_BYTES``."""
    before = _peak_rss()
    _FormatAndDrop.bad.clear()
    yield
    assert not _FormatAndDrop.bad, f"log lines that are not one line: {_FormatAndDrop.bad[:3]}"
    grew = _peak_rss() - before
    assert grew < MEMORY_LIMIT_BYTES, f"the peak RSS grew by {grew / 1e6:.0f} MB during this target"


@contextmanager
def bounded() -> Iterator[None]:
    """One case under the time limit (a real-time interval timer interrupts it)."""
    signal.setitimer(signal.ITIMER_REAL, CASE_LIMIT_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def only(error: type[BaseException], fn: Callable[[], Any]) -> Any:
    """``fn()`` under ``bounded``; it may raise ``error`` (one line) and nothing else."""
    with bounded():
        try:
            return fn()
        except error as exc:
            text = str(exc)
            assert text and "\n" not in text and len(text) < 1000, repr(text[:2000])
            return exc


# --- mutations (seeded NumPy: cheap enough for 10,000 cases a target): tests/fuzz_mutate.py ----

def cases(corpus: list[Any], seed: int, mutate: Callable[[Any, np.random.Generator], Any]) -> Iterator[Any]:
    """``BATCH`` cases from ``seed``: mostly mutated corpus entries, a few untouched."""
    rng = np.random.default_rng(seed)
    for _ in range(BATCH):
        base = corpus[int(rng.integers(0, len(corpus)))]
        yield base if rng.random() < 0.05 else mutate(base, rng)


# --- OSC -------------------------------------------------------------------------------

def _osc_corpus() -> list[bytes]:
    from pythonosc.osc_bundle_builder import OscBundleBuilder
    from pythonosc.osc_message_builder import OscMessageBuilder

    def msg(address: str, *args: tuple[Any, str | None]) -> Any:
        b = OscMessageBuilder(address=address)
        for value, tag in args:
            b.add_arg(value, tag)
        return b.build()

    messages = [msg("/sensekit/set/motion/threshold", (30.0, "f")), msg("/sensekit/preset", ("book", "s")),
                msg("/sensekit/pause", (1, "i")), msg("/sensekit/set/color", ("#ff8000", "s")),
                msg("/sensekit/set/motion/zones", ("door=0,0,0.5,1", "s")), msg("/a"),
                msg("/x", (2 ** 40, "h"), (0.5, "d"), (b"blob", "b"), (True, "T"), (None, "N"), ((1, 2, 3, 4), "m")),
                msg("/arr", ([1, [2.0, "x"]], None))]
    out = [m.dgram for m in messages]
    for depth in range(1, 4):
        b = OscBundleBuilder(10 ** 9)
        for m in messages[:depth + 1]:
            b.add_content(m)
        inner = b.build()
        for _ in range(depth):
            outer = OscBundleBuilder(2 * 10 ** 9)
            outer.add_content(inner)
            inner = outer.build()
        out.append(inner.dgram)
    out.append(b"#bundle\0" + struct.pack(">Qi", 1, -4) + b"/a\0\0,\0\0\0")     # issue 21's datagram
    return out


OSC_CORPUS = _osc_corpus()


@FUZZ
@given(SEEDS)
def test_fuzz_osc_datagrams(seed: int) -> None:
    from sensekit.osc import decode

    for dgram in cases(OSC_CORPUS, seed, mutate_bytes):
        got = only(ValueError, lambda: decode(dgram))
        if not isinstance(got, ValueError):
            assert all(r.address.startswith("/") and isinstance(r.args, tuple) for r in got)


@pytest.fixture(scope="module")
def control() -> Iterator[Any]:
    from sensekit.audio.activity import ActivityDetector
    from sensekit.osc import OscControl
    from sensekit.settings import Tuning
    from sensekit.vision.motion import MotionDetector

    stages = [ActivityDetector(), MotionDetector()]
    c = OscControl("127.0.0.1", 0, tuning=Tuning(lambda: stages), pause=lambda on: None)
    yield c
    c.close()


ODD_ARGS: list[Any] = [0, 1, -1, 2 ** 31 - 1, 2 ** 63, -(2 ** 70), 0.5, math.nan, math.inf, -math.inf, 1e308, "none",
                       "book", "#ff0000", "1e999", "a=0,0,1,1", "9" * 400, "", None, True, False, b"\x01", [1, 2],
                       (1, 2, 3, 4), "nan", "x" * 300]
ADDRESSES = ["/sensekit/set/motion/threshold", "/sensekit/set/activity/silence_level", "/sensekit/set/motion/zones",
             "/sensekit/set/threshold", "/sensekit/set/color", "/sensekit/set/tracker/color", "/sensekit/preset",
             "/sensekit/pause", "/sensekit/set/motion", "/sensekit/set//x", "/sensekit/set/a/b/c", "/",
             "/sensekit/set/motion/threshold\nforged line", "/\x1b[31mred", "/" + "x" * 5000]


@FUZZ
@given(SEEDS)
def test_fuzz_osc_control(control: Any, seed: int) -> None:
    """Datagrams into ``receive`` and odd messages into ``handle``: never an exception, and each
    datagram or message is counted somewhere (accepted, rejected, unused, malformed, oversized)."""
    from sensekit.osc import decode

    rng = np.random.default_rng(seed)
    for dgram in cases(OSC_CORPUS, seed, mutate_bytes):
        before = sum(control.stats().values())
        with bounded():
            control.receive(dgram, ("10.0.0.9", 9))
        try:
            silent = decode(dgram) == []                       # an empty bundle: nothing to count
        except ValueError:
            silent = False
        assert silent or sum(control.stats().values()) > before
        address = ADDRESSES[int(rng.integers(0, len(ADDRESSES)))]
        args = [ODD_ARGS[int(i)] for i in rng.integers(0, len(ODD_ARGS), int(rng.integers(0, 3)))]
        before = sum(control.stats().values())
        with bounded():
            control.handle(address, *args)
        assert sum(control.stats().values()) > before


# --- recording files ---------------------------------------------------------------------

GOOD_META: dict[str, Any] = {
    "format": "sensekit-recording", "version": 2, "sources": ["camera:0"],
    "video": {"width": 64, "height": 48, "fps": 12.0, "fps_from": "source", "codec": "FFV1",
              "segments": "video", "playlist": "video.ffconcat", "timestamps": "video_ts.csv",
              "checksums": "video_crc.csv"},
    "audio": {"sample_rate": 8000, "channels": 1, "gain": 50, "block_size": 400, "file": "audio.wav",
              "sample_format": "int16", "checksums": "audio_crc.csv", "checksum_block": 400},
    "start_unix": 0.0, "audio_offset_s": 0.0, "notes": "", "complete": True, "frames": 24,
    "audio_samples": 16000, "duration_s": 2.0}
META_CORPUS = [json.dumps(GOOD_META, indent=2), json.dumps({**GOOD_META, "video": None}),
               json.dumps({**GOOD_META, "audio": None, "version": 1, "complete": False})]


def overwrite(path: Path, data: bytes) -> None:
    """Replace a file's content without truncating it to zero first (ext4 flushes a file on
    close after an ``O_TRUNC``: 5 ms a case)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
        os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A scratch recording folder, in memory (``/dev/shm``) where there is one: 20,000 file
    writes a target should not wait for a shared disk."""
    shm = Path("/dev/shm")
    base = Path(tempfile.mkdtemp(dir=shm)) if shm.is_dir() and os.access(shm, os.W_OK) \
        else tmp_path_factory.mktemp("fuzzrec")
    path = base / "f.skrec"
    path.mkdir()
    for name in ("video_ts.csv", "video_crc.csv", "audio.wav", "audio_crc.csv", "video.ffconcat"):
        (path / name).write_bytes(b"")
    (path / "video").mkdir()
    yield path
    shutil.rmtree(base, ignore_errors=True)


@FUZZ
@given(SEEDS)
def test_fuzz_meta_json(folder: Path, seed: int) -> None:
    for text in cases(META_CORPUS, seed, mutate_text):
        overwrite(folder / "meta.json", text.encode("utf-8", "surrogatepass"))
        got = only(RecordingError, lambda: read_meta(folder))
        if isinstance(got, dict):
            assert got["video"] is not None or got["audio"] is not None


TS_CORPUS = ["index,t\n" + "".join(f"{n},{n / 12:.6f}\n" for n in range(12)),
             VIDEO_CRC_HEADER + "\n" + "".join(f"{n},{n * 7919 & 0xFFFFFFFF:08x}\n" for n in range(12)),
             "index,t\n0,0.000000\n1,0.08", "index,t\n"]


@FUZZ
@given(SEEDS, st.booleans())
def test_fuzz_timestamp_and_checksum_files(folder: Path, seed: int, complete: bool) -> None:
    path = folder / "video_ts.csv"
    rng = np.random.default_rng(seed)
    for text in cases(TS_CORPUS, seed, mutate_text):
        data = text.encode("utf-8", "surrogatepass")
        overwrite(path, mutate_bytes(data, rng) if rng.random() < 0.3 else data)
        got = only(RecordingError, lambda: read_timestamps(path, complete=complete))
        if isinstance(got, np.ndarray):
            assert np.all(np.isfinite(got)) and np.all(np.diff(got) >= 0)
        got = only(RecordingError, lambda: read_checksums(path, VIDEO_CRC_HEADER, complete=complete))
        if isinstance(got, np.ndarray):
            assert got.dtype == np.uint32


# --- profiles and --set values --------------------------------------------------------------

PROFILE_CORPUS = [
    "[motion]\nnoise_sigma = 1.1\nthreshold = 30\n\n[motion.zones]\ndoor = [0.0, 0.0, 0.25, 1.0]\n",
    "[audio]\ngain = 62.5\n\n[activity]\nsilence_level = 25.0\ntimeout_ms = 500.0\n"
    "[clapper]\nmethod = \"activity\"\n",
    "[tracker]\ncolor = \"#ff8000\"\nhue_tolerance = 12\n[clap]\nthreshold = \"none\"\n",
    "[color]\ntarget = \"#ff8000\"\ntolerance = 10\n[audio]\nthreshold = 30\n[motion]\nnoise_floor = 4\n",
    "motion.threshold = 12\n[activity]\ntimeout_ms = 1e3\n"]


@FUZZ
@given(SEEDS)
def test_fuzz_profiles(seed: int) -> None:
    from sensekit.profile import loads_profile

    for text in cases(PROFILE_CORPUS, seed, mutate_text):
        only(ConfigError, lambda: loads_profile(text, path="venue.toml"))


def _setting_keys() -> list[str]:
    from sensekit.settings.registry import load_table

    return sorted(s.key for group in load_table(apps=True).values() for s in group.items)


SET_CORPUS = [f"{key}={value}" for key in _setting_keys()[::3]
              for value in ("30", "0.5", "none", "true", "#ff8000", "a=0,0,0.5,0.5", "activity")]


@FUZZ
@given(SEEDS)
def test_fuzz_set_values(seed: int) -> None:
    import argparse

    from sensekit.cli.tuning import _assignment

    for text in cases(SET_CORPUS, seed, mutate_text):
        got = only(argparse.ArgumentTypeError, lambda: _assignment(text))
        if isinstance(got, tuple):
            assert not isinstance(got[1], float) or math.isfinite(got[1])


# --- the panel ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def panel_control() -> Any:
    """A panel control over a fixed 320x240 picture and two running stages: the parts of every
    run's control that the bodies reach (settings, zones, points and boxes)."""
    from sensekit.audio.activity import ActivityDetector
    from sensekit.panel.control import PanelControl
    from sensekit.settings import Tuning
    from sensekit.vision.motion import MotionDetector

    class Fixed(PanelControl):
        def picture(self) -> np.ndarray:
            return np.zeros((240, 320, 3), np.uint8)

    stages = [MotionDetector(), ActivityDetector()]
    return Fixed(lambda: stages, Tuning(lambda: stages))


BODY_CORPUS = ['{"x": 10, "y": 20.5}', '{"box": [10, 20, 30, 40]}', '{"name": "door", "box": [0, 0, 100, 200]}',
               '{"values": {"motion.threshold": 30, "activity.silence_level": 25.5}}',
               '{"values": {"motion.zones": {"door": [0, 0, 0.5, 1]}}}',
               '{"texts": {"motion.threshold": "30", "motion.zones": "a=0,0,1,1"}}', '{"values": {}}', "{}"]


@FUZZ
@given(SEEDS)
def test_fuzz_panel_bodies(panel_control: Any, seed: int) -> None:
    """What each ``/api`` route does with a body, minus HTTP: parse, check, act. Only
    ``ConfigError`` (a 400 with its message); an answer is plain JSON."""
    from sensekit.panel.server import PanelServer, parse_body

    def route(raw: bytes) -> Any:
        body = parse_body(raw)
        if "x" in body or "y" in body:
            x, y = PanelServer._numbers(body, "x", "y")
            return panel_control._check_point(x, y)
        if "name" in body:
            name = body.get("name")
            if not isinstance(name, str):
                raise ConfigError("`name` must be a zone name")
            return panel_control.set_zone(name, PanelServer._box(body))
        if "box" in body:
            return panel_control._check_box(PanelServer._box(body))
        values, texts = body.get("values", {}), body.get("texts", {})
        if not isinstance(values, dict) or not isinstance(texts, dict) or not (values or texts) \
                or not all(isinstance(v, str) for v in texts.values()):
            raise ConfigError("send values or texts")
        result = panel_control.apply(values, texts)
        json.dumps(result, allow_nan=False)
        return result

    for text in cases(BODY_CORPUS, seed, mutate_text):
        raw = text.encode("utf-8", "surrogatepass")
        only(ConfigError, lambda: route(raw))


@pytest.fixture(scope="module")
def video_client() -> Any:
    from sensekit.panel.frames import FrameHub
    from sensekit.panel.server import _VideoClient

    return _VideoClient(None, FrameHub())  # type: ignore[arg-type]  # on_text never touches the socket


WS_CORPUS = ['{"ack": 1}', '{"overlays": ["mask", "boxes"]}', '{"overlays": []}', '{"token": "abc"}',
             '{"ack": 1, "overlays": ["zones"]}']


@FUZZ
@given(SEEDS)
def test_fuzz_websocket_messages(video_client: Any, seed: int) -> None:
    """Messages a video client may send: never an exception; credits stay in 0..VIDEO_CREDITS and
    overlays among the known ones."""
    from sensekit.vision.layers import OVERLAYS
    from sensekit.panel.server import VIDEO_CREDITS

    for text in cases(WS_CORPUS, seed, mutate_text):
        with bounded():
            video_client.on_text(text)
        video_client.credits -= 1 if video_client.credits > 0 else 0      # a frame went out
        assert 0 <= video_client.credits <= VIDEO_CREDITS
        assert video_client.overlays <= frozenset(OVERLAYS)
