"""``--pick``, ``--mode`` and ``--keys`` of ``sensekit run``: scripted input (``sensekit.app.script``)."""
from __future__ import annotations

import argparse

from sensekit.app.base import App
from sensekit.app.script import (
    EPS_S,
    KEY_NAMES,
    Script,
    check_mode,
    parse_keys,
    parse_pick,
)
from sensekit.errors import ConfigError

__all__ = ["add_script_arguments", "script_from_args"]


def add_script_arguments(parser: argparse.ArgumentParser) -> None:
    """``--pick``, ``--mode`` and ``--keys`` (values are checked by ``script_from_args``)."""
    parser.add_argument("--pick", metavar="X,Y",
                        help="pick the colour at pixel X,Y of the (mirrored) picture when the first "
                             "frame arrives, as a click there would")
    parser.add_argument("--mode", metavar="NAME",
                        help="start in this mode (apps whose key c cycles modes: steer, collide)")
    parser.add_argument("--keys", metavar="LIST",
                        help='press keys at run times in seconds, e.g. "c@2.0,space@5" '
                             f"(keys: {' '.join(KEY_NAMES)}; S is Shift+S)")


def script_from_args(args: argparse.Namespace, app_cls: type[App]) -> Script | None:
    """The checked ``Script`` for ``app_cls`` from the parsed options, or ``None`` if none given."""
    pick = parse_pick(args.pick) if args.pick is not None else None
    mode = check_mode(app_cls, args.mode) if args.mode is not None else None
    keys = parse_keys(args.keys) if args.keys is not None else ()
    frames = getattr(args, "frames", None)
    if frames is not None and keys and keys[-1].t_s > (frames - 1) * app_cls.step_s + EPS_S:
        last = keys[-1]
        raise ConfigError(f"--keys: {last.key}@{last.t_s:g} comes after the last step of the run, "
                          f"at {(frames - 1) * app_cls.step_s:.3f} s (--frames {frames})")
    script = Script(pick=pick, mode=mode, keys=keys)
    return script if script else None
