"""A wrong-typed argument to a public constructor is one clear error naming it (``sensekit/arg_types.py``).

``AudioStage(clap=1)`` ended in ``AttributeError: 'int' object has no attribute 'set_gain'``. The sweep:
every parameter of every public constructor of the table, given a value of a type nothing accepts,
must raise a ``TypeError`` or ``ValueError`` (never an ``AttributeError``, never accepted) whose message
names the class and the parameter; and a table of the mistakes people make gives the words.
"""
from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sensekit.arg_types import ArgumentTypeError, check_value
from sensekit.audio.clap import ClapDetector
from sensekit.audio.pipeline import AudioStage
from sensekit.capture.recorder import Recorder
from sensekit.capture.replay import ReplaySource
from sensekit.errors import ConfigError
from sensekit.osc.sender import OscSender
from sensekit.runner import Runner
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.pipeline import VisionStage
from sensekit.vision.targets import Target

from .audio.test_pipeline import ArraySource

DEMO = Path(__file__).resolve().parents[1] / "recordings" / "demo.skrec"


class Wrong:
    """A value of a type no parameter takes."""

    def __repr__(self) -> str:
        return "<wrong>"


def _source() -> ArraySource:
    return ArraySource(np.zeros(512, np.float32), 16000)


#: (class, how to call it with the parameter ``name`` set to ``value``); the other arguments make a valid call
def _calls(tmp: Path) -> dict[str, tuple[Callable[..., Any], Callable[[str, Any], Any]]]:
    def call(cls: Callable[..., Any], *required: Any, **base: Any) -> Callable[[str, Any], Any]:
        names = [n for n in inspect.signature(cls).parameters][: len(required)]

        def go(name: str, value: Any) -> Any:
            args = {**dict(zip(names, required)), **base}
            args[name] = value
            pos = [args.pop(n) for n in names if n in args and _positional(cls, n)]
            return cls(*pos, **args)
        return go
    return {
        "AudioStage": (AudioStage, call(AudioStage)),
        "VisionStage": (VisionStage, call(VisionStage)),
        "Runner": (Runner, call(Runner, _source())),
        "ColorTracker": (ColorTracker, call(ColorTracker)),
        "Target": (Target, call(Target, "click")),
        "Recorder": (Recorder, call(Recorder, tmp / "take.skrec", audio=(16000, 1))),   # a valid take but one
        "ReplaySource": (ReplaySource, call(ReplaySource, DEMO)),
        "OscSender": (OscSender, call(OscSender, "127.0.0.1", 9)),
    }


def _positional(cls: Callable[..., Any], name: str) -> bool:
    p = inspect.signature(cls).parameters[name]
    return p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)


def _params(cls: Callable[..., Any]) -> list[str]:
    return [n for n, p in inspect.signature(cls).parameters.items()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


CLASSES = ["AudioStage", "VisionStage", "Runner", "ColorTracker", "Target", "Recorder", "ReplaySource", "OscSender"]


@pytest.mark.parametrize("owner", CLASSES)
def test_every_parameter_given_a_wrong_type_is_one_error_naming_it(owner: str, tmp_path: Path) -> None:
    cls, go = _calls(tmp_path)[owner]
    params = _params(cls)
    assert params, owner
    bad = []
    for name in params:
        try:
            go(name, Wrong())
        except (TypeError, ValueError) as exc:
            msg = str(exc)
            if isinstance(exc, AttributeError) or name not in msg or "\n" in msg:
                bad.append((name, type(exc).__name__, msg))
        except Exception as exc:                   # AttributeError and the like: the defect
            bad.append((name, type(exc).__name__, str(exc)))
        else:
            bad.append((name, "accepted", ""))
    assert not bad, bad
    assert not list(tmp_path.iterdir())            # nothing written by a refused call


@pytest.mark.parametrize(("call", "words"), [
    (lambda: AudioStage(clap=1), "`AudioStage(clap=...)` must be a ClapDetector or None, got int 1"),
    (lambda: AudioStage(clap=ClapDetector), "`AudioStage(clap=...)` must be a ClapDetector or None, got type"),
    (lambda: AudioStage(gain="loud"), "`AudioStage(gain=...)` must be a number or None, got str 'loud'"),
    (lambda: VisionStage(tracker="red"), "`VisionStage(tracker=...)` must be a ColorTracker or None, got str"),
    (lambda: VisionStage(pick_at=5), "`VisionStage(pick_at=...)` must be a tuple of 2 (number, number) or None"),
    (lambda: VisionStage(always_run="motion"), "`VisionStage(always_run=...)` must be an iterable (a list, not a "
                                               "str), got str 'motion'"),
    (lambda: Runner(_source(), stages=AudioStage()), "`Runner(stages=...)` must be an iterable"),
    (lambda: Runner(_source(), lazy="no"), "`Runner(lazy=...)` must be True or False, got str 'no'"),
    (lambda: ColorTracker(tolerance=Wrong()), "`ColorTracker(tolerance=...)` must be a str or a number or a "
                                              "sequence"),
    (lambda: Target("box", box=5), "`Target(box=...)` must be a tuple of 4 (number, number, number, number) or "
                                   "None, got int 5"),
    (lambda: Target("boxes"), "`Target(kind=...)` must be one of 'click', 'box', 'color', 'resize', got str"),
    (lambda: Recorder(5), "`Recorder(path=...)` must be a str or a path, got int 5"),
    (lambda: Recorder("x.skrec", video=(640, 480)), "`Recorder(video=...)` must be a tuple of 3"),
    (lambda: ReplaySource(None), "`ReplaySource(path=...)` must be a str or a path, got NoneType None"),
    (lambda: ReplaySource(DEMO, clock=1.0), "`ReplaySource(clock=...)` must be a Clock or None, got float 1.0"),
    (lambda: OscSender("127.0.0.1", "9000"), "`OscSender(port=...)` must be an integer, got str '9000'"),
    (lambda: OscSender("127.0.0.1", 9000, events="clap"), "`OscSender(events=...)` must be an iterable (a list, "
                                                          "not a str) or None, got str 'clap'"),
])
def test_the_mistakes_people_make_read_as_one_line(call: Callable[[], Any], words: str) -> None:
    with pytest.raises(ArgumentTypeError) as info:
        call()
    assert str(info.value).startswith(words)
    assert isinstance(info.value, TypeError) and isinstance(info.value, ConfigError)   # and a ValueError


def test_what_a_type_checker_accepts_is_accepted() -> None:
    """An int where a float is asked, NumPy scalars, a list for a tuple, a Path, an ndarray for a
    sequence: the check refuses only what the constructor could not use."""
    assert check_value(3, float) and check_value(np.float32(0.5), float) and check_value(np.int64(3), int)
    assert check_value([1, 2], tuple[float, float]) and not check_value([1, 2, 3], tuple[float, float])
    assert check_value(Path("a"), str | os.PathLike[str]) and check_value(np.zeros(3), Any)
    assert not check_value("clap", list[str]) and check_value(["clap"], list[str])
    assert not check_value(True, ClapDetector) and check_value(None, ClapDetector | None)
    iterator = iter([1, 2])
    assert check_value(iterator, __import__("collections.abc").abc.Iterable) and next(iterator) == 1   # not consumed
    AudioStage(gain=50, clap=ClapDetector())
    VisionStage(tracker=ColorTracker(), pick_at=[1.0, 2.0], always_run=["motion"])
    Target.region((1, 2, 3, 4))
