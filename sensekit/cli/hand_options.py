"""Hand options for ``sensekit events``: ``--hands`` and the ``hands`` group's bound options.

    --hands                   hand, gesture, pinch and hand_lost events (MediaPipe; needs
                              the extra: python -m pip install -e '.[hands]')
    --hand-model M            full (default, as MediaPipe's) | lite
    --max-hands N             1 or 2 (default 2)
    --no-hand-smoothing       raw MediaPipe landmarks (no One-Euro smoothing)
    --gestures MODEL.json     name the gestures taught by ``sensekit teach gesture`` instead
                              of the built-in ones (``gesture`` events carry a confidence);
                              without it, the ``--profile``'s ``[taught_gestures]``, if any

The last three are bound to the ``hands`` settings group (``sensekit.vision.hands``), like
every other hand setting through ``--set hands.NAME=VALUE``. ``--mirror`` (``vision.mirror``)
also flips what the hand stage sees. Without the extra, ``--hands`` is one line naming the
install command (exit status 2); without ``--hands`` MediaPipe is never imported.
"""
from __future__ import annotations

import argparse
from typing import Any, Mapping

from sensekit.cli.tuning import section_values, stage_options
from sensekit.errors import ConfigError
from sensekit.runner import Stage

__all__ = ["add_arguments", "build_stages"]


#: the place of these options among the stage providers' (``sensekit.cli.events.stage_providers``)
STAGE_ORDER = 30


def add_arguments(parser: argparse.ArgumentParser) -> None:
    stage_options(parser, "hands", extra="hands", sections=["hands"], options=[
        ("--hands", {"action": "store_true", "help": "emit hand, gesture, pinch and hand_lost events"}),
        ("--gestures", {"metavar": "MODEL.json", "default": None,
                        "help": "taught gestures (sensekit teach gesture) instead of the built-in ones"})])


def build_stages(args: argparse.Namespace, source: Any, chosen: Mapping[str, Any] | None = None) -> list[Stage]:
    """The hand stage when ``--hands`` is given, else ``[]``."""
    if not getattr(args, "hands", False):
        if getattr(args, "gestures", None):                    # was silently ignored
            raise ConfigError("--gestures needs --hands (it names the gestures the hand stage knows)")
        return []
    from sensekit.vision.hands import HandStage     # imports MediaPipe only when asked

    chosen = chosen or {}
    values = section_values(chosen, "hands")
    values.setdefault("mirror", bool(chosen.get("vision.mirror", False)))
    taught = None
    if getattr(args, "gestures", None):
        taught = load_taught(args.gestures)
    elif getattr(args, "profile", None):
        from sensekit.cli.setting_origin import CHOSEN_DEST
        from sensekit.profile import load_profile
        from sensekit.vision.taught import TaughtGestures

        read = getattr(getattr(args, CHOSEN_DEST, None), "profile", None)    # the profile the run loaded
        model = (read if read is not None else load_profile(args.profile)).taught_gestures
        taught = TaughtGestures.from_dict(model) if model is not None else None
    return [HandStage(taught=taught, **values)]


#: a taught gestures model (``sensekit teach gesture``): at most 60 examples of 63 numbers a
#: gesture, ~80 kB each as JSON; 16 MB is far beyond any
MAX_MODEL_BYTES = 16 << 20


def load_taught(path: str) -> Any:
    """The taught gestures model in ``path`` (JSON), or a ``ConfigError`` naming the file."""
    from sensekit.safe_read import loads_json, read_regular
    from sensekit.vision.taught import TaughtGestures

    what = f"taught gestures {path!r}"
    try:       # a regular file, capped, read as every file of the CLI (a FIFO hung the start)
        data = loads_json(read_regular(path, max_bytes=MAX_MODEL_BYTES, what=what), what=what)
    except FileNotFoundError:
        raise ConfigError(f"{what} does not exist") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path!r} is not a taught gestures model (sensekit teach gesture writes one)")
    try:
        return TaughtGestures.from_dict(data)
    except ConfigError as exc:          # named: the model's own message did not say which file
        raise ConfigError(f"{path!r}: {exc}") from None
