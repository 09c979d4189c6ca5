#!/usr/bin/env python3
"""Are the claps unchanged? Every clap of every shared clip, before and after a speed change.

Streams each audio clip of the shared data (``SHARED_DATA/audio/*.wav``, mono, its own rate)
through a fresh ``ClapDetector`` at block sizes 256, 512 and 1024 and start offsets 0 and
517 samples, and records each clap's ``t`` and ``strength`` exactly (as hex floats). A speed
change of the detector must leave this file identical: run ``--save FILE`` on the old code
(e.g. ``PYTHONPATH`` pointing at a ``git archive`` of the previous commit's ``sensekit/``),
then ``--check FILE`` on the new. Exit status 1 and the first differing runs when they differ.
Cost: ~5 s for the 71 clips (426 runs).

``--noise-route``: with ``clap.noise_route`` on (the floor route, ``clap_floor``; the
detector's default since the eleventh pass), so a change of the route's code is checked too;
without it the route is off, as the files saved before that pass were; ``--white DBFS`` adds
seeded white noise of that RMS to every clip first (e.g. -50: many more bursts then lie over a
steady floor and reach the route's expert).

Usage: .venv/bin/python benchmarks/clap_identity.py (--save FILE | --check FILE) [--data DIR]
       [--noise-route] [--white DBFS]
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from _identity import identity_arguments, save_or_check

from sensekit.audio.clap import ClapDetector
from sensekit.evaluation.audio.evaluate import read_wav

BLOCKS = (256, 512, 1024)
OFFSETS = (0, 517)


def claps_of_every_clip(folder: Path, *, noise_route: bool = False,
                        white_dbfs: float | None = None) -> dict[str, list[list[str]]]:
    """``"clip|block|offset"`` -> the claps as ``[t.hex(), strength.hex()]``."""
    out: dict[str, list[list[str]]] = {}
    for i_clip, path in enumerate(sorted(folder.glob("*.wav"))):
        x, rate = read_wav(path)
        if white_dbfs is not None:
            noise = np.random.default_rng(i_clip).standard_normal(x.shape) * 10.0 ** (white_dbfs / 20.0)
            x = (x + noise).astype(np.float32)
        for bs in BLOCKS:
            for off in OFFSETS:
                det = ClapDetector(noise_route=noise_route)
                y = x[off:]
                got = []
                for i in range(0, len(y), bs):
                    for c in det.process(y[i:i + bs].copy(), i / rate, rate, index=i // bs):
                        got.append([float(c.t).hex(), float(c.strength).hex()])
                out[f"{path.name}|{bs}|{off}"] = got
    return out


def main(argv: list[str] | None = None) -> int:
    ap = identity_arguments(__doc__, "claps")
    ap.add_argument("--noise-route", action="store_true", help="with clap.noise_route on")
    ap.add_argument("--white", type=float, default=None, metavar="DBFS",
                    help="add seeded white noise of this RMS (dBFS) to every clip")
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        raise SystemExit(f"shared audio folder not found: {args.data}")
    got = claps_of_every_clip(args.data, noise_route=args.noise_route, white_dbfs=args.white)
    return save_or_check(args, got, f"{len(got)} runs, {sum(len(v) for v in got.values())} claps",
                         lambda k, before, now: f"before {before}, now {now}")


if __name__ == "__main__":
    raise SystemExit(main())
