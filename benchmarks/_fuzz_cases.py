"""The fuzz sweep's harness (``Sweep``: a case at a time under a watchdog) and its in-process
boundaries: OSC datagrams (and a burst of them at a real control port), recordings damaged at
every byte boundary, and the files a show reads (profiles with taught tables, gesture models,
MIDI maps). ``benchmarks/fuzz_inputs.py`` runs them; the network and live-source boundaries
are in ``benchmarks/_fuzz_net.py``.
"""
from __future__ import annotations

import json
import math
import os
import resource
import shutil
import socket
import struct
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

MAX_FAILURES = 200


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Sweep:
    """Counts cases and failures; a watchdog thread ends the process on a case past its limit
    (printing the case and every thread's stack), so a hang in C code is caught too."""

    def __init__(self, name: str, seed: int) -> None:
        self.name, self.seed = name, seed
        self.count = 0
        self.failures: list[str] = []
        self.notes: list[str] = []
        self._label = ""
        self._deadline = math.inf
        self._rss0 = peak_rss_mb()
        threading.Thread(target=self._watch, daemon=True).start()

    def rng(self, k: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, k])

    def _watch(self) -> None:
        while True:
            time.sleep(0.2)
            if time.monotonic() > self._deadline:
                import faulthandler
                faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
                self.failures.append(f"HANG: {self._label}")
                print(json.dumps({"name": self.name, "cases": self.count, "failures": self.failures,
                                  "seconds": 0, "notes": self.notes}), flush=True)
                os._exit(1)

    def fail(self, label: str, what: str) -> None:
        if len(self.failures) < MAX_FAILURES:
            self.failures.append(f"{label}: {what[:400]}")

    @contextmanager
    def case(self, label: str, limit: float = 5.0) -> Iterator[None]:
        self.count += 1
        self._label = label
        self._deadline = time.monotonic() + limit
        try:
            yield
        except Exception as exc:  # noqa: BLE001 - anything unexpected is the finding
            tb = traceback.extract_tb(exc.__traceback__)[-1]
            self.fail(label, f"{type(exc).__name__}: {exc} (at {Path(tb.filename).name}:{tb.lineno})")
        finally:
            self._deadline = math.inf
        grew = peak_rss_mb() - self._rss0
        if grew > 512:
            self.fail(label, f"the peak RSS grew by {grew:.0f} MB")
            self._rss0 = peak_rss_mb()

    def only(self, label: str, errors: tuple[type[BaseException], ...], fn: Callable[[], Any],
             names: tuple[str, ...] = (), limit: float = 5.0) -> Any:
        """``fn()`` as a case: it may raise one of ``errors`` with a one-line message (naming one
        of ``names`` when given), nothing else."""
        with self.case(label, limit):
            try:
                return fn()
            except errors as exc:
                text = str(exc)
                if not text or "\n" in text or len(text) > 1000:
                    self.fail(label, f"{type(exc).__name__} not one line: {text[:300]!r}")
                elif names and not any(n in text for n in names):
                    self.fail(label, f"{type(exc).__name__} names none of {names}: {text[:300]}")
                return exc
        return None


# --- OSC ------------------------------------------------------------------------------------

ADDRESSES = [b"/sensekit/set/threshold", b"/sensekit/set/motion/threshold", b"/sensekit/preset",
             b"/sensekit/pause", b"/sensekit/set/motion/zones", b"/a", b"/", b"/sensekit/set/color"]
TAGS = "ifsbhdtcrmTFNI[]"
ODD_TAGS = "xyz\x01\x7f\u00e9"
ODD_I32 = [0, 1, -1, -4, 3, 2 ** 31 - 1, -(2 ** 31), 65536, 4095, 4096, 0x7FFFFFF0]
ODD_F32 = [math.nan, math.inf, -math.inf, 3.4e38, -0.0, 1e-45, 0.5, 31.0]


def _pad(s: bytes) -> bytes:
    return s + b"\0" * (4 - len(s) % 4)


def _osc_message(rng: np.random.Generator) -> bytes:
    addr = ADDRESSES[int(rng.integers(len(ADDRESSES)))]
    chars = [TAGS[int(i)] for i in rng.integers(0, len(TAGS), int(rng.integers(0, 12)))]
    if rng.random() < 0.1:
        chars.insert(int(rng.integers(0, len(chars) + 1)), ODD_TAGS[int(rng.integers(len(ODD_TAGS)))])
    if rng.random() < 0.05:
        chars = ["["] * int(rng.integers(8, 200)) + chars
    body = b""
    for c in chars:
        if c in "ircm":
            body += struct.pack(">i", ODD_I32[int(rng.integers(len(ODD_I32)))])
        elif c == "f":
            body += struct.pack(">f", ODD_F32[int(rng.integers(len(ODD_F32)))])
        elif c in "hdt":
            body += struct.pack(">d", ODD_F32[int(rng.integers(len(ODD_F32)))]) if c == "d" \
                else struct.pack(">q", int(rng.integers(-2 ** 62, 2 ** 62)))
        elif c == "s":
            body += _pad(rng.integers(32, 127, int(rng.integers(0, 20)), dtype=np.uint8).tobytes())
        elif c == "b":
            n = int(rng.integers(0, 40))
            lie = [n, n + 4, n + 1000, 2 ** 31 - 1, -1, -8, 0][int(rng.integers(7))]
            body += struct.pack(">i", lie) + _pad(bytes(n))[:n + (-n % 4)]
    dgram = _pad(addr) + _pad(("," + "".join(chars)).encode("utf-8")) + body
    if rng.random() < 0.15:
        dgram = dgram[:int(rng.integers(0, len(dgram) + 1))]
    return dgram


def _osc_bundle(rng: np.random.Generator, depth: int) -> bytes:
    out = b"#bundle\0" + struct.pack(">Q", int(rng.integers(0, 2 ** 63)))
    for _ in range(int(rng.integers(0, 4))):
        inner = _osc_bundle(rng, depth - 1) if depth > 0 and rng.random() < 0.5 else _osc_message(rng)
        size = len(inner) if rng.random() < 0.8 else ODD_I32[int(rng.integers(len(ODD_I32)))]
        out += struct.pack(">i", size) + inner
    return out


def osc_case(rng: np.random.Generator) -> bytes:
    kind = int(rng.integers(0, 6))
    if kind == 0:
        return rng.integers(0, 256, int(rng.integers(0, 600)), dtype=np.uint8).tobytes()
    if kind == 1:
        return _osc_message(rng)
    if kind == 2:
        return _osc_bundle(rng, int(rng.integers(0, 4)))
    if kind == 3:                               # nested deep, one element each (sizes true or lying)
        inner = _osc_message(rng)
        for _ in range(int(rng.integers(1, 40))):
            size = len(inner) if rng.random() < 0.9 else int(rng.integers(-8, 2 ** 31 - 1))
            inner = b"#bundle\0" + struct.pack(">Qi", 1, size) + inner
        return inner
    if kind == 4:                               # a huge count of tiny elements
        el = b"/a\0\0,\0\0\0"
        n = int(rng.integers(100, 6000))
        return b"#bundle\0" + struct.pack(">Q", 1) + (struct.pack(">i", 8) + el) * n
    good = b"/sensekit/set/threshold\0,f\0\0" + struct.pack(">f", 31.0)
    out = bytearray(good)
    for _ in range(int(rng.integers(1, 4))):
        i = int(rng.integers(0, len(out)))
        out[i] ^= 1 << int(rng.integers(0, 8))
    return bytes(out)


def fuzz_osc(sweep: Sweep, n: int) -> None:
    from sensekit.audio.activity import ActivityDetector
    from sensekit.osc import OscControl, decode
    from sensekit.settings import Tuning
    from sensekit.vision.motion import MotionDetector

    import logging
    logging.getLogger("sensekit").setLevel(logging.CRITICAL)
    stages = [ActivityDetector(), MotionDetector()]
    control = OscControl("127.0.0.1", 0, tuning=Tuning(lambda: stages), pause=lambda on: None)
    dgrams = []
    for k in range(n):
        d = osc_case(sweep.rng(k))
        dgrams.append(d)
        sweep.only(f"osc decode case {k} ({len(d)} bytes, {d[:24]!r})", (ValueError,), lambda: decode(d), limit=2)
        with sweep.case(f"osc control case {k} ({len(d)} bytes, {d[:24]!r})", limit=2):
            control.receive(d, ("10.0.0.9", 9))
    control.close()
    # bursts at a real port: every case sent at once, then one setting that must apply
    detector = ActivityDetector()
    control = OscControl("127.0.0.1", 0, tuning=Tuning(lambda: [detector])).start()
    good = b"/sensekit/set/threshold\0,f\0\0" + struct.pack(">f", 33.0)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for b in range(0, len(dgrams), 500):
            with sweep.case(f"osc burst {b // 500} (datagrams {b}..{b + 499}, then a setting)", limit=15):
                before = control.accepted
                for d in dgrams[b:b + 500]:
                    if 0 < len(d) <= 65000:
                        s.sendto(d, ("127.0.0.1", control.port))
                settled, last = time.monotonic(), control.stats()
                while time.monotonic() - settled < 0.5:         # what got in is read, the rest dropped
                    time.sleep(0.05)
                    if control.stats() != last:
                        settled, last = time.monotonic(), control.stats()
                s.sendto(good, ("127.0.0.1", control.port))
                deadline = time.monotonic() + 5
                while control.accepted <= before and time.monotonic() < deadline:
                    time.sleep(0.01)
                if control.accepted <= before:
                    sweep.fail(f"osc burst {b // 500}", f"a setting after the burst did not apply: {control.stats()}")
    t0 = time.monotonic()
    control.close()
    if time.monotonic() - t0 > 1.5:
        sweep.fail("osc close", f"closing took {time.monotonic() - t0:.1f} s")
    sweep.notes.append(f"control stats after the bursts: {control.stats()}")


# --- recordings -----------------------------------------------------------------------------

def seeded_recording(path: Path, size: tuple[int, int], frames: int, samples: int, blocks: int) -> Path:
    """A recording at ``path`` of ``frames`` frames of seeded noise, ``size`` (w, h) at 12 fps, and the
    first ``blocks`` 400-sample blocks of ``samples`` seeded noise samples at 8 kHz (seed 1: the same
    bytes every time; this sweep's and ``fault_matrix.make_recording``'s)."""
    from sensekit.capture.base import AudioBlock, VideoFrame
    from sensekit.capture.recording import Recorder

    w, h = size
    rng = np.random.default_rng(1)
    audio = (rng.standard_normal(samples) * 0.2).astype(np.float32)
    with Recorder(path, video=(w, h, 12.0), audio=(8000, 1), block_size=400, start_unix=0.0,
                  fsync=False) as rec:
        items: list[Any] = [VideoFrame(i, i / 12, rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
                            for i in range(frames)]
        items += [AudioBlock(k, k * 0.05, audio[k * 400:(k + 1) * 400], 8000) for k in range(blocks)]
        for item in sorted(items, key=lambda it: (it.t, isinstance(it, AudioBlock))):
            rec.write(item)
    return path


def make_small_recording(path: Path, version: int) -> Path:
    seeded_recording(path, (16, 12), 9, 2400, 6)
    if version == 1:
        from tests.capture.recording_versions import to_version_1
        to_version_1(path)
    return path


def _inspect_agrees(sweep: Sweep, folder: Path, label: str) -> bool:
    """``inspect`` says the audio is skipped exactly when replay skips it, and counts the samples
    replay plays (harden17); whether replay skipped it."""
    from sensekit.capture.recording_check import check_recording
    from sensekit.capture.replay import ReplaySource

    src = ReplaySource(folder)
    src.open()
    try:
        skipped, samples = src.stats()["audio_skipped"], src.audio_sample_count
    finally:
        src.close()
    rep = check_recording(folder, decode=False)
    says = rep.audio.playable_samples if rep.audio is not None else 0
    if (rep.audio_skipped is None) != (skipped is None) or says != samples:
        sweep.fail(label, f"replay skips the audio: {skipped!r}, {samples} samples; inspect: "
                          f"{rep.audio_skipped!r}, {says} samples")
    return skipped is not None


def replay_all(folder: Path) -> int:
    from sensekit.capture.replay import ReplaySource

    src = ReplaySource(folder, realtime=False, loop=False)
    n = 0
    src.open()
    try:
        for _item in src:
            n += 1
            if n > 100_000:
                raise AssertionError("more than 100,000 items from a 9-frame recording")
    finally:
        src.close()
    return n


def _damaged_copy(pristine: Path, work: Path, rel: str, data: bytes, complete: bool | None) -> Path:
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(pristine, work, copy_function=os.link)
    target = work / rel
    target.unlink()
    target.write_bytes(data)
    if complete is not None and rel != "meta.json":
        meta_path = work / "meta.json"
        meta = json.loads(meta_path.read_text())
        meta["complete"] = complete
        meta_path.unlink()
        meta_path.write_text(json.dumps(meta))
    return work


def recording_damages(pristine: Path, n: int, rng: np.random.Generator) -> Iterator[tuple[str, str, bytes]]:
    """(label, file, new content): each file cut at every byte boundary, then ``n`` bit flips
    and lying 32-bit lengths."""
    files = sorted(str(p.relative_to(pristine)) for p in pristine.rglob("*") if p.is_file())
    for f in files:
        data = (pristine / f).read_bytes()
        for cut in range(len(data)):
            yield f"{f} cut to {cut} of {len(data)} bytes", f, data[:cut]
    for k in range(n):
        f = files[int(rng.integers(len(files)))]
        buf = bytearray((pristine / f).read_bytes())
        if not buf:
            continue
        if k % 3 == 0 and len(buf) >= 8:               # a lying 32-bit length at a word boundary
            at = int(rng.integers(0, len(buf) - 3))
            value = [0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 4, len(buf) * 100][int(rng.integers(7))]
            buf[at:at + 4] = struct.pack("<I", value)
            yield f"{f}: bytes {at}..{at + 3} set to {value:#x}", f, bytes(buf)
        else:
            bits = int(rng.integers(1, 9))
            spots = [int(i) for i in rng.integers(0, len(buf) * 8, bits)]
            for b in spots:
                buf[b // 8] ^= 1 << (b % 8)
            yield f"{f}: bit(s) {spots} flipped", f, bytes(buf)


#: a file checked against another: a message naming either names the damage (a checksum file
#: cut short and the file it checks disagree; which of the two is wrong cannot be told)
PARTNERS = {"video_ts.csv": ("video_ts_crc.csv", "video_crc.csv"), "video_ts_crc.csv": ("video_ts.csv",),
            "audio.wav": ("audio_crc.csv",), "audio_crc.csv": ("audio.wav",), "video_crc.csv": ("video_ts.csv",)}


def fuzz_recording(sweep: Sweep, n: int) -> None:
    import logging

    from sensekit.errors import RecordingError

    logging.getLogger("sensekit").setLevel(logging.CRITICAL)
    logging.getLogger().setLevel(logging.CRITICAL)
    base = Path(tempfile.mkdtemp(prefix="fuzzrec-", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None))
    audio_cases = skipped = 0
    try:
        for version in (2, 1):
            pristine = make_small_recording(base / f"v{version}.skrec", version)
            whole = replay_all(pristine)
            for k, (label, rel, data) in enumerate(recording_damages(pristine, n // 2, sweep.rng(version))):
                complete = None if k % 2 == 0 else False
                work = _damaged_copy(pristine, base / "work.skrec", rel, data, complete)
                names = (Path(rel).name, "work.skrec", "meta.json") + PARTNERS.get(Path(rel).name, ())
                got = sweep.only(f"v{version} {label}{' (marked incomplete)' if complete is False else ''}",
                                 (RecordingError,), lambda: replay_all(work), names=names, limit=10)
                if complete is False and rel in ("audio.wav", "audio_crc.csv") and isinstance(got, RecordingError):
                    # an incomplete recording plays its WAV up to what is there, and its video
                    # alone when the audio cannot be read (harden17; docs: replay.py)
                    sweep.fail(f"v{version} {label} (marked incomplete)", f"refused, video intact: {got}")
                if complete is False and rel in ("audio.wav", "audio_crc.csv") and isinstance(got, int):
                    audio_cases += 1
                    skipped += _inspect_agrees(sweep, work, f"v{version} {label} (marked incomplete)")
                if isinstance(got, int) and got > whole:
                    sweep.fail(f"v{version} {label}", f"{got} items played, the whole recording has {whole}")
        sweep.notes.append(f"{audio_cases} incomplete copies with damaged audio played; {skipped} of them "
                           "their video without the audio (inspect agreed on each)")
    finally:
        shutil.rmtree(base, ignore_errors=True)


# --- files: profiles with taught tables, gesture models, MIDI maps ---------------------------

def _files_corpus() -> list[tuple[str, str]]:
    import base64

    rng = np.random.default_rng(3)

    def b64(a: np.ndarray, dtype: str) -> str:
        return base64.b64encode(np.ascontiguousarray(a, dtype).tobytes()).decode("ascii")

    ex = [b64(rng.standard_normal((6, 13)), "<f2") for _ in range(2)]
    sounds = ("[audio]\ngain = 50\n\n[sounds.knock]\nspread = 3.5\nexamples = [" +
              ", ".join(f'"{e}"' for e in ex) + "]\n")
    from sensekit.audio.speech_embedding import embedding_size
    size = embedding_size(1.0)
    words = ('[taught_words.model]\nwindow_s = 1.0\nformat = 1\nclasses = ["", "one"]\ntakes = [4, 4]\n'
             'c = 0.05\nbias = [0.1, -0.1]\nweights = [' +
             ", ".join(f'"{b64(rng.standard_normal(size), "<f8")}"' for _ in range(2)) + "]\n")
    from sensekit.vision.taught import TaughtGestures
    from sensekit.vision.taught import hand_features
    model = TaughtGestures().fit({"open": [hand_features(rng.random((21, 3))) for _ in range(3)],
                                  "fist": [hand_features(rng.random((21, 3))) for _ in range(3)]})
    gestures = json.dumps(model.to_dict())
    midi = '[midi]\nport = "x"\n[midi.map]\n"level.level" = "cc 7 -60..0"\nclap = "note 60"\n'
    return [("sounds", sounds), ("words", words), ("gestures", gestures), ("midi", midi)]


def fuzz_files(sweep: Sweep, n: int) -> None:
    import logging

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.fuzz_mutate import mutate_text

    from sensekit.errors import ConfigError

    logging.getLogger("sensekit").setLevel(logging.CRITICAL)
    corpus = _files_corpus()
    tmp = Path(tempfile.mkdtemp(prefix="fuzzfiles-"))
    try:
        for k in range(n):
            rng = sweep.rng(k)
            kind, text = corpus[k % len(corpus)]
            text = mutate_text(text, rng)
            path = tmp / ("model.json" if kind == "gestures" else "venue.toml")
            path.write_bytes(text.encode("utf-8", "surrogatepass"))
            sweep.only(f"{kind} case {k} ({text[:60]!r}...)", (ConfigError,), lambda: load_file(kind, path),
                       names=(path.name,))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load_file(kind: str, path: Path) -> Any:
    if kind == "sounds":
        from sensekit.cli.voice_options import load_sound_book
        from sensekit.profile.load import load_profile
        load_profile(path)
        return load_sound_book(str(path))
    if kind == "words":
        from sensekit.cli.voice_options import load_taught_words
        return load_taught_words(str(path))
    if kind == "gestures":
        from sensekit.cli.hand_options import load_taught
        return load_taught(str(path))
    from sensekit.midi.mapping import load_midi
    return load_midi(path)
