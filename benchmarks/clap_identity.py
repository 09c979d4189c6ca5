#!/usr/bin/env python3
"""Are the claps unchanged? Every clap of every shared clip, before and after a speed change.

Streams each audio clip of the shared data (``SHARED_DATA/audio/*.wav``, mono, its own rate)
through a fresh ``ClapDetector`` at block sizes 256, 512 and 1024 and start offsets 0 and
517 samples, and records each clap's ``t`` and ``strength`` exactly (as hex floats). A speed
change of the detector must leave this file identical: run ``--save FILE`` on the old code
(e.g. ``PYTHONPATH`` pointing at a ``git archive`` of the previous commit's ``sensekit/``),
then ``--check FILE`` on the new. Exit status 1 and the first differing runs when they differ.
Cost: ~5 s for the 71 clips (426 runs).

Usage: .venv/bin/python benchmarks/clap_identity.py (--save FILE | --check FILE) [--data DIR]
"""
from __future__ import annotations

from pathlib import Path

from _identity import identity_arguments, save_or_check

from sensekit.audio.clap import ClapDetector
from sensekit.audio.evaluate import read_wav

BLOCKS = (256, 512, 1024)
OFFSETS = (0, 517)


def claps_of_every_clip(folder: Path) -> dict[str, list[list[str]]]:
    """``"clip|block|offset"`` -> the claps as ``[t.hex(), strength.hex()]``."""
    out: dict[str, list[list[str]]] = {}
    for path in sorted(folder.glob("*.wav")):
        x, rate = read_wav(path)
        for bs in BLOCKS:
            for off in OFFSETS:
                det = ClapDetector()
                y = x[off:]
                got = []
                for i in range(0, len(y), bs):
                    for c in det.process(y[i:i + bs].copy(), i / rate, rate, index=i // bs):
                        got.append([float(c.t).hex(), float(c.strength).hex()])
                out[f"{path.name}|{bs}|{off}"] = got
    return out


def main(argv: list[str] | None = None) -> int:
    args = identity_arguments(__doc__, "claps").parse_args(argv)
    if not args.data.is_dir():
        raise SystemExit(f"shared audio folder not found: {args.data}")
    got = claps_of_every_clip(args.data)
    return save_or_check(args, got, f"{len(got)} runs, {sum(len(v) for v in got.values())} claps",
                         lambda k, before, now: f"before {before}, now {now}")


if __name__ == "__main__":
    raise SystemExit(main())
