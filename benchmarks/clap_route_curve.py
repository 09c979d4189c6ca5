#!/usr/bin/env python3
"""Recall and false claps in noise with ``clap.noise_route`` off and on (docs/claps.md, "Teach the venue").

Every clap clip of the shared data mixed with white, pink, brown noise and babble at 5 and 10 dB
(``sensekit.evaluation.audio.clap_noise.noise_curve``: the claps' loudest 5 ms RMS over the noise RMS),
streamed in 512-sample blocks at start offsets 0 and 517; prints recall / false claps per minute
(the worse offset) for each. The trees are the shipped ones, fitted on every source: NOT held
out (the held-out figures are the eighth and eleventh passes', docs/claps_history.md). Cost: ~1 min a setting.

Usage: .venv/bin/python benchmarks/clap_route_curve.py [--data DIR]
"""
from __future__ import annotations

import argparse
import functools
from pathlib import Path

from _reference import SHARED_DATA

from sensekit.audio.clap import ClapDetector
from sensekit.evaluation.audio.clap_noise import format_curve, noise_curve


def _same(make: functools.partial[ClapDetector], _source: str) -> functools.partial[ClapDetector]:
    """Every source's detector is made alike (``noise_curve``'s ``make_for``)."""
    return make


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=SHARED_DATA)
    args = ap.parse_args(argv)
    for on in (False, True):
        make = functools.partial(ClapDetector, noise_route=on)
        points = noise_curve(args.data, kinds=("white", "pink", "brown", "babble"), snrs_db=(5.0, 10.0),
                             offsets=(0, 517), make_for=functools.partial(_same, make))
        print(f"clap.noise_route {'on' if on else 'off'}")
        print(format_curve(points))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
