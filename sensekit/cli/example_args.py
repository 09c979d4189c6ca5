"""The command line of the scripts in examples/: one call parses it.

``--help`` shows the script's docstring; an unknown option, an extra argument, a source or an
OSC target that cannot be read ends in the usage and one line naming it (exit status 2), and a
sensekit error while the script runs (a camera that is not there) in one line (status 1), not
in a traceback through sensekit's modules.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import TracebackType

from sensekit.errors import SensekitError

__all__ = ["example_args"]

DEFAULT_TARGET = "127.0.0.1:9000"


def _source(text: str) -> str:
    from sensekit.capture.spec import parse_source_spec

    try:
        parse_source_spec(text)
    except SensekitError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _target(text: str) -> tuple[str, int]:
    from sensekit.osc import parse_target

    try:
        return parse_target(text)
    except SensekitError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def example_args(doc: str | None, *, target: bool = False, fast: bool = False,
                 argv: list[str] | None = None) -> argparse.Namespace:
    """Parse ``[SOURCE]`` (default ``demo``), with ``target`` also ``[HOST:PORT]`` (``args.target``
    is ``(host, port)``, default 127.0.0.1:9000) and with ``fast`` the ``--fast`` flag."""
    prog = Path(sys.argv[0]).name or "example"
    parser = argparse.ArgumentParser(prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", nargs="?", default="demo", type=_source, metavar="SOURCE",
                        help="demo (the bundled recording), mic, camera:0, a media file or a recording (default: demo)")
    if target:
        parser.add_argument("target", nargs="?", default=DEFAULT_TARGET, type=_target, metavar="HOST:PORT",
                            help=f"where to send OSC (default: {DEFAULT_TARGET})")
    if fast:
        parser.add_argument("--fast", action="store_true", help="play a recording as fast as possible")
    args = parser.parse_args(argv)
    _one_line_errors(prog)
    return args


def _one_line_errors(prog: str) -> None:
    """A ``SensekitError`` the script does not catch prints ``prog: error: ...``, not a traceback."""
    default = sys.excepthook

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if isinstance(exc, SensekitError):
            print(f"{prog}: error: {exc}", file=sys.stderr)
        else:
            default(kind, exc, tb)

    sys.excepthook = hook
