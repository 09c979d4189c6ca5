#!/usr/bin/env python3
"""Draw the clap detector's noise curve (docs/claps_noise_curve.png) from audio_eval's JSON.

Two panels against SNR (the claps' loudest 5 ms RMS over the noise RMS): recall, and false
claps per minute, one line per noise kind; each point is the worst of the start offsets
measured. The JSON is written by ``benchmarks/audio_eval.py --curve-json``; its ``mode``
(leave-one-source-out or the shipped detector) is printed in the title.

Usage: .venv/bin/python benchmarks/plot_claps.py [--json docs/claps_noise_curve.json]
       [--out docs/claps_noise_curve.png]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, default=REPO / "docs" / "claps_noise_curve.json")
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "claps_noise_curve.png")
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = json.loads(args.json.read_text())
    points = data["points"]
    kinds = list(dict.fromkeys(p["kind"] for p in points))
    fig, (ax_r, ax_f) = plt.subplots(1, 2, figsize=(10, 4), dpi=100)
    for kind in kinds:
        snrs = sorted({p["snr_db"] for p in points if p["kind"] == kind})
        rec = [min(p["recall"] for p in points if p["kind"] == kind and p["snr_db"] == s) for s in snrs]
        fpm = [max(p["false_per_min"] for p in points if p["kind"] == kind and p["snr_db"] == s)
               for s in snrs]
        ax_r.plot(snrs, rec, marker="o", label=kind)
        ax_f.plot(snrs, fpm, marker="o", label=kind)
    ax_r.axhline(0.9, color="grey", lw=0.8, ls="--")
    ax_r.axhline(0.75, color="grey", lw=0.8, ls=":")
    ax_r.set(xlabel="SNR (dB): claps' loudest 5 ms RMS over noise RMS", ylabel="recall",
             ylim=(0, 1.02))
    ax_f.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax_f.set(xlabel="SNR (dB)", ylabel="false claps per minute")
    ax_r.legend(fontsize=8)
    ax_r.grid(alpha=0.3)
    ax_f.grid(alpha=0.3)
    fig.suptitle(f"claps in noise: {data['mode']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
