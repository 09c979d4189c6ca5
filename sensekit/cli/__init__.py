"""The ``sensekit`` command.

Each subcommand lives in its own module in this package and exposes
``register(subparsers)``, which adds its parser and sets ``func(args) -> int``.
Modules are discovered automatically, so adding a command means adding a file.

Errors that sensekit raises on purpose (``SensekitError``) print as one plain
line and exit with status 2; Ctrl-C exits with 130. No traceback, unless ``-v``.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import sys

from sensekit import __version__
from sensekit.errors import SensekitError

log = logging.getLogger("sensekit")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sensekit",
        description="Control programs with a camera and a microphone.",
    )
    parser.add_argument("--version", action="version", version=f"sensekit {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    parser.add_argument("-q", "--quiet", action="store_true", help="only warnings and errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "register"):
            module.register(sub)
    return parser


def setup_logging(verbose: int, quiet: bool) -> None:
    level = logging.WARNING if quiet else (logging.DEBUG if verbose > 1 else logging.INFO)
    logging.basicConfig(level=level, format="%(message)s" if verbose == 0 else
                        "%(levelname)s %(name)s: %(message)s", stream=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    setup_logging(args.verbose, args.quiet)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except SensekitError as exc:
        if args.verbose > 1:
            raise
        print(f"sensekit: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("sensekit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `sensekit events ... | head`): stop quietly.
        import os
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
