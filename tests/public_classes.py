"""The table of every public class a user builds, for tests/test_public_constructors.py and the
benchmarks that run the same sweep (benchmarks/_fault_h23.py, benchmarks/arg_check_libraries.py):
which classes, the valid arguments each is built with, and which are left out and why."""

from __future__ import annotations

import dataclasses
import enum
import importlib
import inspect
import pkgutil
import re
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import sensekit
from sensekit.settings import Tunable

from .test_arg_types import DEMO
from .test_arg_types import Wrong as Wrong     # the wrong-typed value, for the sweeps

#: packages whose classes are tooling, not the API a user builds a piece with
TOOLING = ("sensekit.evaluation.", "sensekit.cli", "sensekit.synth")


def public_classes() -> list[str]:
    """``module.Class`` for every public class of the API reference that a user constructs: not a
    record (a dataclass or a named tuple: the library makes them, ``Target`` aside), an exception, an
    enum or a protocol."""
    names = ["sensekit"] + sorted(m.name for m in pkgutil.walk_packages(sensekit.__path__, "sensekit.")
                                  if not re.match(r".*\.__main__$", m.name))
    out = []
    for name in names:
        if name.startswith(TOOLING):
            continue
        mod = importlib.import_module(name)
        public = getattr(mod, "__all__", None) or [k for k in vars(mod) if not k.startswith("_")]
        for k in public:
            o = getattr(mod, k, None)
            if not inspect.isclass(o) or o.__module__ != name:
                continue
            if (issubclass(o, (BaseException, enum.Enum, tuple)) or getattr(o, "_is_protocol", False)
                    or typing.is_typeddict(o) or dataclasses.is_dataclass(o)):
                continue
            out.append(f"{name}.{k}")
    return out


def _load(qualname: str) -> Any:
    module, _, name = qualname.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _panel_parts() -> dict[str, Any]:
    from sensekit.panel.address import PanelAddress
    from sensekit.panel.commands import CommandQueue
    from sensekit.panel.control import PanelControl
    from sensekit.panel.frames import FrameHub
    from sensekit.panel.telemetry import Telemetry
    from sensekit.settings.live import Tuning
    return {"address": PanelAddress("127.0.0.1", 0), "hub": FrameHub(), "telemetry": Telemetry(),
            "commands": CommandQueue(), "control": PanelControl(lambda: [], Tuning([])), "info": {}}


#: class -> the arguments of a valid call (a value for each required parameter); each parameter is then
#: given a wrong value in its turn, with the others as here
SWEPT: dict[str, Callable[[], dict[str, Any]]] = {
    "sensekit.audio.activity.ActivityDetector": dict,
    "sensekit.audio.clap.ClapDetector": dict,
    "sensekit.audio.clap_pattern.ClapPatternTracker": dict,
    "sensekit.audio.level.LevelMeter": dict,
    "sensekit.audio.noise_floor.NoiseFloor": dict,
    "sensekit.audio.pipeline.AudioStage": dict,
    "sensekit.audio.pitch.PitchTracker": dict,
    "sensekit.audio.sounds.SoundBook": dict,
    "sensekit.audio.vad.SpeechSegmenter": dict,
    "sensekit.audio.voice.VoiceStage": lambda: {"values": {"words": ("yes",)}},
    "sensekit.audio.word_classifier.WordClassifier": dict,
    "sensekit.audio.words.WordSpotter": lambda: {"words": ["yes"]},
    "sensekit.capture.camera.CameraSource": lambda: {"device": "/nonexistent/clip.mp4"},
    "sensekit.capture.combined.CombinedSource": lambda: {"video": None, "audio": _source()},
    "sensekit.capture.media.MediaFileSource": lambda: {"path": DEMO / "video.mkv"},
    "sensekit.capture.microphone.MicrophoneSource": lambda: {"device": 987654},
    "sensekit.capture.recorder.Recorder": lambda: {"path": Path("take.skrec"), "audio": (16000, 1)},
    "sensekit.capture.replay.ReplaySource": lambda: {"path": DEMO},
    "sensekit.clock.ManualClock": dict,
    "sensekit.clock.ScaledClock": dict,
    "sensekit.collide.neighbours.NeighbourGrid": lambda: {"positions": np.zeros((3, 2)), "radius": 10.0},
    "sensekit.midi.mapping.MidiMapper": lambda: {"rules": []},
    "sensekit.osc.control.OscControl": lambda: {"port": 0},
    "sensekit.osc.sender.OscSender": lambda: {"host": "127.0.0.1", "port": 9},
    "sensekit.panel.server.PanelServer": _panel_parts,
    "sensekit.profile.load.Profile": dict,
    "sensekit.runner.Runner": lambda: {"source": _source()},
    "sensekit.steer.flock.Flock": lambda: {"positions": np.zeros((3, 2))},
    "sensekit.steer.flowfield.FlowField": lambda: {"vectors": np.zeros((2, 2, 2)), "cell": 10.0},
    "sensekit.steer.keep_up.TargetSpeed": dict,
    "sensekit.steer.mix.Mix": dict,
    "sensekit.steer.vehicle.Vehicle": dict,
    "sensekit.vision.background.BackgroundModel": dict,
    "sensekit.vision.blob_tracker.BlobTracker": dict,
    "sensekit.vision.color_tracker.ColorTracker": dict,
    "sensekit.vision.motion.MotionDetector": dict,
    "sensekit.vision.pipeline.VisionStage": dict,
    "sensekit.vision.smoothing.OneEuro2D": dict,
    "sensekit.vision.smoothing.OneEuroFilter": dict,
    "sensekit.vision.smoothing.OneEuroArray": dict,
    "sensekit.vision.taught.TaughtGestures": dict,
}

#: the optional extras a class needs: swept when importable, skipped with the reason otherwise
NEEDS = {"sensekit.vision.hands.HandStage": "mediapipe", "sensekit.vision.pose.PoseStage": "mediapipe",
         "sensekit.vision.silhouette.SilhouetteStage": "mediapipe"}

#: the public classes not swept, and why (each one a decision; a new class must be added to one table)
NOT_SWEPT: dict[str, str] = {
    **{f"sensekit.app.{m}": "built by AppHost for an app, not by a user" for m in (
        "controls.Controls", "host.AppHost", "hud.Hud", "outputs.RunOutputs", "overlay_view.OverlayView",
        "picking.TrackerPicking", "profile_saver.ProfileSaver", "script.Script", "stage_input.StageInput",
        "subscribe.Subscriber", "video.VideoRecorder")},
    "sensekit.app.base.App": "subclassed, not constructed: an app's own __init__",
    "sensekit.app.hand_input.HandInput": "takes the app (`App`) it is attached to; needs mediapipe",
    "sensekit.app.body_input.BodyInput": "takes the app (`App`) it is attached to; needs mediapipe",
    **{f"sensekit.audio.{m}": "a part of ClapDetector (its model, features, settings), built by it" for m in (
        "clap_energy.BandEnergy", "clap_features.TreeModel", "clap_features.BurstMeter", "clap_floor.FloorRoute",
        "clap_settings.ClapSettings", "clap_trees.BitTrees")},
    "sensekit.audio.live_examples.SegmentCatcher": "a part of the panel's sound teaching, built by it",
    "sensekit.audio.open_set.NearTakes": "built by TaughtWords.fit from the takes",
    "sensekit.audio.speech_embedding.SpeechEmbedder": "loads its ONNX model; built by TaughtWords/VoiceStage",
    "sensekit.audio.taught_words.TaughtWords": "built by taught_words.load / teach from a fitted classifier",
    "sensekit.budget.TimeBudget": "internal: the runner's and the settings' time budget",
    "sensekit.capture.base.Source": "the base class of the sources: subclassed, not constructed",
    "sensekit.capture.checksums.ChecksumLog": "a part of Recorder, built by it",
    "sensekit.capture.checksums.PcmChecksums": "a part of Recorder, built by it",
    "sensekit.capture.video_segments.SegmentWriter": "a part of Recorder, built by it",
    "sensekit.capture.wav.WavWriter": "a part of Recorder, built by it",
    "sensekit.capture.wav.WavInfo": "read from a file by wav.read_info",
    "sensekit.clock.MonotonicClock": "takes no argument",
    "sensekit.event_base.JsonlWriter": "built by EventSink / the CLI's --events",
    "sensekit.event_sink.EventSink": "built by the CLI's --events from an open file",
    "sensekit.events.HandlerOfAnotherEvent": "a decorator's record, made by @on",
    "sensekit.events.TypedOn": "the @on decorator's object",
    "sensekit.events.Dispatcher": "takes no argument",
    "sensekit.midi.out.MidiOut": "takes an open mido port (`Any`); built by the CLI's --midi",
    "sensekit.osc.lookup.Lookup": "a part of OscSender (its name lookup), built by it",
    "sensekit.osc.pace.CpuPace": "a part of OscControl, built by it",
    **{f"sensekit.panel.{m}": "a part of the panel, built by Panel / the CLI's --panel" for m in (
        "commands.CommandQueue", "connections.ConnectionCap", "control.AppControl", "control.PanelControl",
        "control.StagesControl", "frames.FrameHub", "malformed.MalformedRequests", "session.Panel",
        "tap.PanelTap", "teach.TeachControl", "teach_sound.SoundTeachControl", "telemetry.Telemetry")},
    "sensekit.profile.save.RunValues": "built by the profile save from a run's values",
    "sensekit.ratelimit.BurstWindow": "a part of RateLimitFilter, built by it",
    "sensekit.ratelimit.RateLimitFilter": "a logging filter the CLI installs",
    "sensekit.runner.RecordStage": "built by Runner(record=...)",
    "sensekit.settings.live.Tunable": "a mixin: subclassed, not constructed",
    "sensekit.settings.live.Tuning": "built by the CLI / AppHost from the run's stages",
    "sensekit.settings.live.SettingsBudget": "internal: the run's settings budget",
    **{f"sensekit.vision.{m}": "a part of a vision stage, built by it" for m in (
        "click_pool.ClickPool", "click_refine.ClickRefiner", "color_model.ColorModel", "layers.LayerGrabber",
        "mediapipe_base.NativeStderrFilter", "mediapipe_base.RgbBuffer", "model_follow.ModelFollow",
        "taught_live.LiveTeaching", "view_change.ViewChange")},
}


def _source() -> Any:
    from .audio.test_pipeline import ArraySource
    return ArraySource(np.zeros(512, np.float32), 16000)


#: a class whose ``**kwargs`` are another's parameters
KWARGS_OF = {"sensekit.vision.smoothing.OneEuro2D": "sensekit.vision.smoothing.OneEuroFilter"}


def _params(cls: type) -> list[str]:
    """The named parameters, then (for a class taking ``**settings``) every setting it declares."""
    qualname = f"{cls.__module__}.{cls.__qualname__}"
    if qualname in KWARGS_OF:
        return _params(_load(KWARGS_OF[qualname]))
    sig = inspect.signature(cls)
    names = [n for n, p in sig.parameters.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    takes_more = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    if takes_more and issubclass(cls, Tunable) and hasattr(cls, "SETTINGS"):
        names += [s.name for s in cls.SETTINGS.items if s.name not in names]
    return names


def _close(obj: Any) -> None:
    for name in ("close", "stop"):
        if callable(getattr(obj, name, None)):
            getattr(obj, name)()
            return
