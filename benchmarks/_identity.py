"""What the exact-speed benchmarks share: the ``--save``/``--check`` door of the identity
checks (``clap_identity.py``, ``stage_identity.py``) and the looped clip the cost scripts
(``clap_cost.py``, ``stage_cost.py``) stream."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np
from _reference import SHARED_DATA

from sensekit.evaluation.audio.evaluate import read_wav


def identity_arguments(doc: str, what: str) -> argparse.ArgumentParser:
    """``--save FILE | --check FILE`` and ``--data DIR`` (the shared audio folder)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--save", type=Path, help=f"write the {what} to this JSON file")
    mode.add_argument("--check", type=Path, help="compare with a file --save wrote")
    ap.add_argument("--data", type=Path, default=SHARED_DATA / "audio")
    return ap


def save_or_check(args: argparse.Namespace, got: dict[str, Any], summary: str,
                  show: Callable[[str, Any, Any], str]) -> int:
    """Write ``got`` (``--save``) or compare it with the saved file (``--check``): exit status 1
    and the first runs that differ (``show(key, before, now)``) when any does."""
    if args.save:
        args.save.write_text(json.dumps(got, sort_keys=True))
        print(f"{summary} -> {args.save}")
        return 0
    want = json.loads(args.check.read_text())
    bad = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
    print(f"{summary}; {len(bad)} runs differ from {args.check}")
    for k in bad[:10]:
        print(f"  {k}: {show(k, want.get(k), got.get(k))}", file=sys.stderr)
    return 1 if bad else 0


def looped_blocks(clip: Path, seconds: float, bs: int = 512, *,
                  white_dbfs: float | None = None) -> tuple[list[np.ndarray], list[float], int]:
    """``clip`` looped to ``seconds`` in blocks of ``bs`` samples: the blocks, each block's mean
    energy (as ``sk.all`` passes it to the clap detector) and the clip's rate. ``white_dbfs``:
    seeded white noise of that RMS (seed 0, as ``clap_identity.py --white`` gives its first
    clip) added to the looped signal, a steady floor under every burst."""
    if not clip.is_file():
        raise SystemExit(f"clip not found: {clip}")
    x, rate = read_wav(clip)
    n = int(seconds * rate) // bs * bs
    sig = np.tile(x, -(-n // len(x)))[:n].astype(np.float32)
    if white_dbfs is not None:
        noise = np.random.default_rng(0).standard_normal(n) * 10.0 ** (white_dbfs / 20.0)
        sig = (sig + noise).astype(np.float32)
    blocks = [sig[k * bs:(k + 1) * bs].copy() for k in range(n // bs)]
    return blocks, [float(np.dot(b, b)) / bs for b in blocks], rate
