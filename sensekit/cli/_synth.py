"""``python -m sensekit.synth [--out DIR] [--seconds S]``: the options of the recording generator.

The generator itself is ``sensekit.synth``; argparse lives under ``sensekit.cli`` only. (A
module whose name starts with ``_`` is not a ``sensekit`` subcommand.)
"""
from __future__ import annotations

import argparse

from sensekit.synth import DURATION_S, __doc__ as SYNTH_DOC, generate
from sensekit.cli.numbers import float_in


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sensekit.synth", description=(SYNTH_DOC or "").split("\n")[0])
    parser.add_argument("--out", default=None, help="output folder (default: the repo's recordings/)")
    parser.add_argument("--seconds", type=float_in(0, 3600), default=DURATION_S, help="clip length (default 20)")
    args = parser.parse_args(argv)
    if args.out is None:
        from sensekit.paths import recordings_dir
        args.out = recordings_dir()
    path = generate(args.out, seconds=args.seconds).absolute()   # where it wrote, not the path as typed
    truth = path.with_suffix("").with_suffix(".truth.json")
    size = truth.stat().st_size + sum(p.stat().st_size for p in path.rglob("*") if p.is_file())  # not all of --out
    print(f"wrote {path} and {truth.name} ({size / 1e6:.2f} MB in {path.parent})")
    return 0
