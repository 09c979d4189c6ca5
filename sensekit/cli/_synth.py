"""``python -m sensekit.synth [--out DIR] [--seconds S] [--replace-bundled]``: the options of the
recording generator.

The generator itself is ``sensekit.synth``; argparse lives under ``sensekit.cli`` only. (A
module whose name starts with ``_`` is not a ``sensekit`` subcommand.)

Without ``--out`` it writes into the bundled recordings folder, where a missing demo is looked
for, but it never replaces the bundled ``demo.skrec`` that is there: that one is kept as a format
version 1 recording (``recordings/README.md``), and rewriting it as version 2 changed the
checkout's files. It says so in one line (exit status 2, nothing written) and names ``--out``;
``--replace-bundled`` regenerates the bundle on purpose.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from sensekit.synth import DURATION_S, __doc__ as SYNTH_DOC, generate
from sensekit.cli.numbers import float_in


def _is_bundled(out: Path, bundled: Path) -> bool:
    """Whether ``out`` is the folder of the bundled recordings (however it is spelled)."""
    try:
        return out.resolve() == bundled.resolve()
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    from sensekit.paths import recordings_dir

    parser = argparse.ArgumentParser(prog="python -m sensekit.synth", description=(SYNTH_DOC or "").split("\n")[0])
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="output folder (default: the bundled recordings/, only to make a demo that "
                             "is missing there: the bundled demo.skrec is never replaced without "
                             "--replace-bundled; give --out DIR for a fresh copy)")
    parser.add_argument("--seconds", type=float_in(0, 3600), default=DURATION_S,
                        help=f"clip length (default {DURATION_S:g})")
    parser.add_argument("--replace-bundled", action="store_true",
                        help="rewrite the bundled demo.skrec (kept as a version 1 recording) as the "
                             "generator writes it today (version 2): changes the checkout's files")
    args = parser.parse_args(argv)
    bundled = recordings_dir()
    out = bundled if args.out is None else Path(args.out)
    if (_is_bundled(out, bundled) and (bundled / "demo.skrec").exists()
            and not args.replace_bundled):
        parser.error(f"'{bundled / 'demo.skrec'}' is the bundled demo (a version 1 recording kept as "
                     f"it is); not replacing it: give --out DIR to write a fresh copy elsewhere, or "
                     f"--replace-bundled to rewrite it")
    path = generate(out, seconds=args.seconds).absolute()   # where it wrote, not the path as typed
    truth = path.with_suffix("").with_suffix(".truth.json")
    size = truth.stat().st_size + sum(p.stat().st_size for p in path.rglob("*") if p.is_file())  # not all of --out
    print(f"wrote {path} and {truth.name} ({size / 1e6:.2f} MB in {path.parent})")
    return 0
