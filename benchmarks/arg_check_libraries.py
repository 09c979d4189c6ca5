"""typeguard and beartype against ``sensekit/arg_types.py`` on the constructor sweep (harden23).

    pip install typeguard beartype          # not dependencies of sensekit: only this comparison
    python benchmarks/arg_check_libraries.py --mode arg_types     # or none, typeguard, beartype

One mode a process (a decorator replaces ``__init__`` for good). Each public class of
``tests/public_classes.py``'s table (what tests/test_public_constructors.py sweeps) gets its
undecorated ``__init__`` back (``none``),
keeps ``@checked`` (``arg_types``) or gets ``@typechecked`` / ``@beartype`` instead; then every
parameter and declared setting is given a value of a type none takes, as the test does. Prints how
many were refused, how many in one line naming the argument as a ``TypeError``/``ValueError``, one
message of each other kind, the library's import time and the cost of four valid constructor calls
(best of 5 x 50). A benchmark: nothing is asserted. About 10 s a mode.
"""
from __future__ import annotations

import argparse
import collections
import importlib
import os
import shutil
import sys
import tempfile
import time
import timeit
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _decorate(sweep: Any, mode: str, lib: Any) -> list[str]:
    failed = []
    for qualname in sorted(sweep.SWEPT):
        cls = sweep._load(qualname)
        init = cls.__dict__.get("__init__")
        if init is None:
            continue
        raw = getattr(init, "__wrapped__", init)
        try:
            if mode == "none":
                cls.__init__ = raw
            elif mode == "typeguard":
                cls.__init__ = lib.typechecked(raw)
            elif mode == "beartype":
                cls.__init__ = lib.beartype(raw)
        except Exception as exc:  # noqa: BLE001 - a library that cannot decorate a constructor: reported
            failed.append(f"{cls.__name__}: {type(exc).__name__}")
            cls.__init__ = raw
    return failed


def _sweep(sweep: Any) -> tuple[collections.Counter[str], dict[str, str]]:
    counts: collections.Counter[str] = collections.Counter()
    said: dict[str, str] = {}
    here = os.getcwd()
    for qualname in sorted(sweep.SWEPT):
        cls, base = sweep._load(qualname), sweep.SWEPT[qualname]()
        d = tempfile.mkdtemp()
        os.chdir(d)
        try:
            for name in sweep._params(cls):
                try:
                    sweep._close(cls(**{**base, name: sweep.Wrong()}))
                    counts["accepted"] += 1
                except (TypeError, ValueError) as exc:
                    clear = name in str(exc) and "\n" not in str(exc) and not isinstance(exc, AttributeError)
                    counts["one line naming it" if clear else "refused, unclear"] += 1
                    if not clear:
                        said.setdefault(type(exc).__name__, str(exc)[:200])
                except Exception as exc:  # noqa: BLE001 - what a library raises instead: counted, quoted
                    counts["refused, unclear"] += 1
                    said.setdefault(type(exc).__name__, str(exc)[:200])
        finally:
            os.chdir(here)
            shutil.rmtree(d, ignore_errors=True)
    return counts, said


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=("none", "arg_types", "typeguard", "beartype"), default="arg_types")
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    lib: Any = None
    if args.mode in ("typeguard", "beartype"):
        try:
            lib = importlib.import_module(args.mode)
        except ImportError:
            print(f"{args.mode} is not installed: pip install {args.mode}")
            return 2
    imported_ms = (time.perf_counter() - t0) * 1000
    sys.path.insert(0, str(ROOT))
    sweep: Any = importlib.import_module("tests.public_classes")
    failed = _decorate(sweep, args.mode, lib)
    counts, said = _sweep(sweep)
    from sensekit.audio.clap import ClapDetector
    from sensekit.audio.vad import SpeechSegmenter
    from sensekit.capture.camera import CameraSource
    from sensekit.vision.motion import MotionDetector

    costs = {}
    calls = (("ClapDetector()", ClapDetector), ("MotionDetector()", MotionDetector),
             ("SpeechSegmenter()", SpeechSegmenter), ("CameraSource('x.mp4')", lambda: CameraSource("x.mp4")))
    for label, call in calls:
        costs[label] = round(min(timeit.repeat(call, number=50, repeat=5)) / 50 * 1e6, 1)
    print(f"{args.mode}: import {imported_ms:.0f} ms; of {sum(counts.values())}: {dict(counts)}; "
          f"could not decorate: {failed or 'none'}; us a call: {costs}")
    for kind, text in said.items():
        print(f"  {kind}: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
