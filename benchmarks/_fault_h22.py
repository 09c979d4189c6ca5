"""The fault matrix's rows for harden22: a clap at the very end of a stream, wrong-typed constructor
arguments, and audio blocks a user's source or an odd driver hands over (integer PCM other than
int16, a (channels, n) array, a NaN block right after a clap).

The end-of-stream row runs ``sensekit events`` in a fresh process on a real clip of
``../shared/data`` (``clap_j_sparse7.wav``) cut just after a labelled clap (``clap_onsets.csv``);
without the shared data it says so and counts as not as asked. The others run in this process:
the constructor sweep of ``tests/test_arg_types.py`` (every parameter of eight public constructors
given a value of a type none takes), the recorder and its replay, the audio stage. About 15 s.
"""
from __future__ import annotations

import importlib
import json
import logging
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
from _fault_common import Sweep, clap_cut

Row = Callable[[str, str, str, bool], None]
ROOT = Path(__file__).resolve().parents[1]


def _end_row(tmp: Path, row: Row) -> None:
    case = "events FILE --clap, a real clip cut 10 ms after the onset of a labelled clap (clap_j_sparse7, 1.407 s)"
    if (clip := clap_cut(row, case, 3)) is None:
        return
    import soundfile as sf

    cut, rate, on = clip
    wav = tmp / "cut-after-clap.wav"
    sf.write(wav, cut, rate, subtype="FLOAT")
    p = subprocess.run([sys.executable, "-m", "sensekit", "events", str(wav), "--clap", "--jsonl"],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    claps = [e["t"] for e in map(json.loads, p.stdout.splitlines()) if e.get("event") == "clap"]
    last = [t for t in claps if abs(t - on) <= 0.015]
    where = f"at {last[0]:.3f} s" if last else "missing"
    row("audio", case, f"exit {p.returncode}, {len(claps)} claps, the last one {where} (labelled {on:.3f} s)",
        p.returncode == 0 and len(last) == 1)


def _nan_row(row: Row) -> None:
    from sensekit.audio.clap import ClapDetector
    from sensekit.audio.pipeline import AudioStage
    from sensekit.capture.base import AudioBlock

    case = "a NaN block 10 ms after a labelled clap (a faulty driver), then 0.5 s of silence"
    if (clip := clap_cut(row, case, 3)) is None:
        return
    cut, rate, on = clip
    stage = AudioStage(clap=ClapDetector())
    blocks = [cut[i:i + 512] for i in range(0, len(cut), 512)]
    blocks += [np.full(512, np.nan, np.float32), np.zeros(rate // 2, np.float32)]
    got: list[Any] = []
    n = 0
    logging.disable(logging.WARNING)
    try:
        for k, b in enumerate(blocks):
            got += stage.process(AudioBlock(k, n / rate, b, rate))
            n += len(b)
        got += stage.finish()
    finally:
        logging.disable(logging.NOTSET)
    claps = [e.t for e in got if e.name == "clap"]
    found = [t for t in claps if abs(t - on) <= 0.015]
    where = f"at {found[0]:.3f} s" if found else "lost"
    skipped = stage.skipped_blocks
    row("audio", case, f"{len(claps)} claps; the one before the NaN block {where}; skipped blocks {skipped}",
        len(found) == 1)


def _names_class_and_arg(exc: Exception, owner: str, name: str) -> bool:
    return name in str(exc) and owner in str(exc) and "\n" not in str(exc)


def _types_row(row: Row) -> None:
    sys.path.insert(0, str(ROOT))
    from sensekit.audio.pipeline import AudioStage

    try:                                      # (by name: mypy --strict benchmarks does not read the tests)
        sweep: Any = importlib.import_module("tests.test_arg_types")
        classes: list[str] = sweep.CLASSES
    except ImportError:                       # a checkout without sensekit.arg_types
        classes = []
    tally = Sweep()
    with tempfile.TemporaryDirectory() as d:
        for owner in classes:
            cls, go = sweep._calls(Path(d))[owner]

            def call(name: str, go: Any = go) -> Any:
                return go(name, sweep.Wrong())
            tally.run(owner, sweep._params(cls), call, _names_class_and_arg)
    named, total, other = tally.named, tally.total, tally.other
    try:
        AudioStage(clap=1)  # type: ignore[arg-type]
        said = "accepted"
    except Exception as exc:
        said = f"{type(exc).__name__}: {exc}"
    row("API", "AudioStage(clap=1), and every parameter of 8 public constructors given a wrong type",
        f"{said}; {named} of {total} one line naming class and argument"
        + (f"; not: {', '.join(other[:4])}" if other else ""),
        total > 0 and named == total and said.startswith("ArgumentType"))


def _int_pcm_row(tmp: Path, row: Row) -> None:
    from sensekit.capture.base import AudioBlock
    from sensekit.capture.recorder import Recorder
    from sensekit.capture.replay import ReplaySource

    rate = 16000
    x = np.round(0.5 * np.sin(np.arange(rate) * 2 * np.pi * 440 / rate) * 2 ** 31).astype(np.int32)
    path = tmp / "int32.skrec"
    with Recorder(path, audio=(rate, 1), reproducible=True) as rec:
        for k, i in enumerate(range(0, rate, 512)):
            rec.write(AudioBlock(k, i / rate, x[i:i + 512], rate))
    y = np.concatenate([b.samples for b in ReplaySource(path) if isinstance(b, AudioBlock)])
    mean = float(np.abs(y).mean())
    row("recording", "a source handing int32 PCM (a half-scale 440 Hz sine) to the recorder",
        f"replayed mean |x| {mean:.3f} (the sine's 0.318; a full-scale square wave reads 1.000)",
        abs(mean - 1 / np.pi) < 0.01)


def _transposed_row(row: Row) -> None:
    from sensekit.audio.pipeline import AudioStage
    from sensekit.capture.base import AudioBlock

    try:
        AudioStage().process(AudioBlock(0, 0.0, np.zeros((2, 512), np.float32), 48000))
        said, ok = "accepted: 2 samples of 512 channels, averaged", False
    except ValueError as exc:
        said, ok = f"{type(exc).__name__}: {exc}", "transpose" in str(exc)
    row("audio", "a (channels, n) block: np.zeros((2, 512)) for stereo", said, ok)


def harden22_rows(tmp: Path, row: Row) -> None:
    _end_row(tmp, row)
    _nan_row(row)
    _types_row(row)
    _int_pcm_row(tmp, row)
    _transposed_row(row)
