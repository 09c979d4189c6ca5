#!/usr/bin/env python3
"""The thirty-eighth pass's nesting (docs/claps_history.md): the wider close-call wait's reach ``W`` for
each held-out source, chosen from the other sources only.

Every clip of every source of ``--folds`` streamed through its own held-out fold at offset 0
(``clap_lost_claps.Looks``, route off, 512-sample blocks); the far calls under ``T`` with whether the wait
would lift them (``clap_lost.band_rows``) are kept as ``BAND_0.json`` in ``--out``; then
``clap_wide_nested.nested_reach`` against the negative clips firing today (``--today``: a measure run's
``CLAPS_0.json``, ``clap_false_claps.py --out``) gives ``WIDE_NESTED.json`` (source -> ``W``), which
``clap_wide_nested_stream.py`` streams. ``--band FILE``: reuse a kept ``BAND_0.json``.

Usage: .venv/bin/python benchmarks/clap_wide_nested.py --folds DIR --today CLAPS_0.json --out DIR [--band FILE]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from _reference import SHARED_DATA, data_refused
from clap_false_claps import fold_maker, load_folds
from clap_lost_claps import Looks

from sensekit.evaluation.audio.clap_lost import band_rows
from sensekit.evaluation.audio.clap_wide_nested import REACHES, nested_reach, new_negative_clips
from sensekit.evaluation.audio.evaluate import read_clips, read_wav, recipe_onsets, stream_claps


def band_of_every_source(folds_: Any, sources: list[str], block: int) -> list[dict[str, Any]]:
    """``band_rows`` of every clip of ``sources`` at offset 0, each through its own source's fold."""
    rows: list[dict[str, Any]] = []
    for c in (c for c in read_clips(SHARED_DATA) if c.source in sources):
        x, rate = read_wav(SHARED_DATA / c.file)
        made: list[Looks] = []
        claps = stream_claps(x, rate, block=block, offset=0, make=fold_maker(Looks, c.source, folds_, made))
        truth = c.onsets or (recipe_onsets(x, rate) if c.label == "clap" else [])
        rows.extend({**r, "source": c.source, "clip": c.file, "negative": c.label != "clap"}
                    for r in band_rows(made[-1], made[-1].vals, x, rate, claps, truth))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--folds", type=Path, required=True)
    ap.add_argument("--today", type=Path, required=True, help="a measure run's CLAPS_0.json (what fires today)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--band", type=Path, default=None, help="a kept BAND_0.json instead of streaming")
    ap.add_argument("--block", type=int, default=512)
    args = ap.parse_args(argv)
    if data_refused():
        return 2
    folds_ = load_folds(args.folds)
    sources = sorted(folds_[0])
    today = json.loads(args.today.read_text())
    firing = {r["clip"] for r in today if r["label"] != "clap"}
    args.out.mkdir(parents=True, exist_ok=True)
    if args.band is None:
        band = band_of_every_source(folds_, sources, args.block)
        (args.out / "BAND_0.json").write_text(json.dumps(band, indent=1))
    else:
        band = json.loads(args.band.read_text())
    print(f"negative clips firing today (offset 0): {len(firing)}")
    for w in REACHES:
        print(f"W {w:g}: negative clips the wait would newly fire, by source: "
              + (", ".join(f"{s} {len(new_negative_clips([r for r in band if r['source'] == s], firing, w))}"
                           for s in sources)))
    chosen = nested_reach(band, firing, sources)
    print("W per held-out source (nested): " + ", ".join(f"{s} {w:g}" for s, w in chosen.items()))
    (args.out / "WIDE_NESTED.json").write_text(json.dumps(chosen, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
