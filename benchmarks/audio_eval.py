#!/usr/bin/env python3
"""Print the clap-detection evaluation table on the shared developer clips.

Per clip (clap clips vs all others) and per clap (+-60 ms on clap_onsets.csv), for
sensekit's ClapDetector and for the book's method (ActivityDetector(25, 500): a clip is
"clap" if any activating event). The same numbers are asserted in
tests/audio/test_real_clips.py.

Usage: .venv/bin/python benchmarks/audio_eval.py [--data ../shared/data] [--block 512]
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path,
                    default=Path(os.environ.get("SENSEKIT_SHARED_DATA", REPO.parent / "shared" / "data")))
    ap.add_argument("--block", type=int, default=512, help="block size in samples (default 512)")
    args = ap.parse_args(argv)
    if not (args.data / "labels.csv").is_file():
        print(f"shared data not found at {args.data}", file=sys.stderr)
        return 2
    from sensekit.audio.evaluate import evaluate, format_table

    print(format_table(evaluate(args.data, block=args.block)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
