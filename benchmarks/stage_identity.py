#!/usr/bin/env python3
"""Are level, activity, pitch and claps unchanged? Every block's output, before and after a speed change.

The companion of ``clap_identity.py`` for the other audio stages. Streams every shared audio
clip (``SHARED_DATA/audio/*.wav``, blocks of 256 and 512 samples), the shared laughter clip
looped to 20 s, and ``benchmarks/audio.py``'s own 20 s signal (the reference's synthetic
speech with a clap every 2 s) through a ``LevelMeter``, an ``ActivityDetector(10, 2000)`` and a
``PitchTracker`` and a ``ClapDetector`` (the energy passed as ``sk.all`` passes it), and records
every block's level, every activity event, every block's pitch estimate and every clap exactly
(hex floats; ``clap_identity.py`` checks the claps at more block sizes and offsets). Run ``--save FILE``
on the old code, ``--check FILE`` on the new; exit status 1 and the first differing runs when
they differ. Cost: ~10 s.

Usage: .venv/bin/python benchmarks/stage_identity.py (--save FILE | --check FILE) [--data DIR]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from _identity import identity_arguments, save_or_check
from _reference import SHARED_BENCH, load_reference

from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector
from sensekit.evaluation.audio.evaluate import read_wav
from sensekit.audio.level import LevelMeter
from sensekit.audio.pitch import PitchTracker


def stream(x: np.ndarray, rate: int, bs: int) -> list[str]:
    """One line per block: level, activity event (if any), pitch hz and confidence, claps (hex)."""
    m, act, pt, cd = LevelMeter(), ActivityDetector(10, 2000), PitchTracker(), ClapDetector()
    out = []
    for k, i in enumerate(range(0, len(x) - bs + 1, bs)):
        b, t = x[i:i + bs].copy(), i / rate
        lv = m.process(b, t, rate, index=k)
        if lv is None:
            out.append("skip")
            continue
        ev = act.process(lv, t)
        claps = cd.process(b, t, rate, index=k, energy=m.energy)
        p = pt.process(b, t, rate, energy=m.energy)
        out.append(f"{lv.hex()} {'' if ev is None else int(ev.activating)} "
                   f"{float(p.hz).hex()} {float(p.confidence).hex()}"
                   + "".join(f" clap {float(c.t).hex()} {float(c.strength).hex()}" for c in claps))
    return out


def signals(folder: Path, bench: Path) -> dict[str, tuple[np.ndarray, int, tuple[int, ...]]]:
    """name -> (float32 samples, rate, block sizes)."""
    out: dict[str, tuple[np.ndarray, int, tuple[int, ...]]] = {}
    for path in sorted(folder.glob("*.wav")):
        x, rate = read_wav(path)
        out[path.name] = (x.astype(np.float32), rate, (256, 512))
    laugh = folder / "laugh_room-small_0.wav"
    if laugh.is_file():
        x, rate = read_wav(laugh)
        n = 20 * rate
        out["laughter looped 20 s"] = (np.tile(x, -(-n // len(x)))[:n].astype(np.float32), rate, (512,))
    sys.path.insert(0, str(Path(__file__).parent))
    from audio import add_claps                            # benchmarks/audio.py's signal
    ref = load_reference("audio_ref", bench)
    rng = np.random.default_rng(12345)
    sig = ref.synth_signal(48000, 20.0, rng)
    add_claps(sig, 48000, 2.0, rng)
    out["audio.py signal 20 s"] = (np.asarray(sig, np.float32), 48000, (512,))
    return out


def _first_difference(key: str, before: list[str] | None, now: list[str] | None) -> str:
    w, g = before or [], now or []
    i = next((j for j in range(min(len(w), len(g))) if w[j] != g[j]), min(len(w), len(g)))
    return f"block {i}: before {w[i:i + 1]}, now {g[i:i + 1]}"


def main(argv: list[str] | None = None) -> int:
    ap = identity_arguments(__doc__, "outputs")
    ap.add_argument("--bench-dir", type=Path, default=SHARED_BENCH)
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        raise SystemExit(f"shared audio folder not found: {args.data}")
    got: dict[str, list[str]] = {}
    for name, (x, rate, sizes) in signals(args.data, args.bench_dir).items():
        for bs in sizes:
            got[f"{name}|{bs}"] = stream(x, rate, bs)
    n = sum(len(v) for v in got.values())
    voiced = sum(1 for v in got.values() for s in v
                 if s != "skip" and not s.split(" clap")[0].split()[-2].startswith("0x0"))
    claps = sum(s.count(" clap ") for v in got.values() for s in v)
    return save_or_check(args, got, f"{len(got)} runs, {n} blocks ({voiced} voiced, {claps} claps)",
                         _first_difference)


if __name__ == "__main__":
    raise SystemExit(main())
