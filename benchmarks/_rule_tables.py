"""The tables of the click benchmarks that score first-box rules on cached clicks
(``salient_eval.py``, ``point_prompt_eval.py``): each rule's size ok / IoU > 0.5 per clip and
their mean, per scale; and, held out, the rule each clip would get when it is chosen on the
other clips. ``rates(rows, rule)`` is the benchmark's own: (size ok, IoU > 0.5, clicks with no
box) over ``rows``."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

Rows = list[dict[str, Any]]
Rates = Callable[[Rows, str], tuple[float, float, int]]


def print_rule_tables(rows: Rows, rules: list[str], rates: Rates, *, none_label: str, width: int) -> None:
    """Per scale: a line per rule, each clip's ``size ok / IoU (no box)`` and the mean of the clips."""
    for factor in sorted({r["scale"] for r in rows}):
        at = [r for r in rows if r["scale"] == factor]
        print(f"\nobjects seen x{factor:g}: size ok / IoU > 0.5 ({none_label}), {len(at)} clicks")
        clips = list(dict.fromkeys(r["clip"] for r in at))
        print(f"{'rule':{width}s} " + " ".join(f"{c:>18s}" for c in clips + ["all (mean of clips)"]))
        for rule in rules:
            cells, means = [], []
            for c in clips:
                ok, right, none = rates([r for r in at if r["clip"] == c], rule)
                cells.append(f"{ok:5.2f} / {right:4.2f} ({none:2d})")
                means.append((ok, right))
            m = np.mean(means, axis=0)
            print(f"{rule:{width}s} " + " ".join(f"{v:>18s}" for v in cells) + f" {m[0]:10.2f} / {m[1]:4.2f}")


def print_held_out(rows: Rows, options: list[str], rates: Rates) -> None:
    """For each clip the rule among ``options`` with the most size-ok clicks on the other clips
    (all scales), scored on the clip at each scale; and the mean over the clips."""
    print(f"\nheld out: for each clip the rule among {options} with the most size-ok clicks on the others")
    clips = list(dict.fromkeys(r["clip"] for r in rows))
    for factor in sorted({r["scale"] for r in rows}):
        means = []
        for c in clips:
            rest = [r for r in rows if r["clip"] != c]
            pick = max(options, key=lambda o: rates(rest, o)[0])
            ok, right, _ = rates([r for r in rows if r["clip"] == c and r["scale"] == factor], pick)
            means.append((ok, right))
            print(f"  x{factor:g} {c}: chose {pick!r}: {ok:.2f} / {right:.2f}")
        m = np.mean(means, axis=0)
        print(f"x{factor:g} all: {m[0]:.2f} / {m[1]:.2f}")
