"""What a streamed clip's detector lost, clap by clap (the thirty-seventh pass, docs/claps_history.md).

``lost_claps`` takes a ``clap_losses.LossDetector`` that has streamed one clip (after ``offset_s``
seconds of zeros), the clap times it reported (clip time) and the clip's annotated onsets, and says,
with ``evaluate.match``'s greedy matching, which annotated claps were missed and where each was lost
(``loss_of``, with the best judged burst near it), and which reported claps are false (with the
trees' score and whether the wait decided them). ``source_counts`` sums a source's clips into its
per-clap tp / fp / fn and F1.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from sensekit.audio.clap_wait import SHIPPED, close_call_score
from sensekit.evaluation.audio.clap_losses import NEAR_S, Judged, LossDetector, best_near, loss_of, unmatched

#: how close (s) a judged burst's onset must be to a reported clap's time to be that clap's record
SAME_S = 1e-6


def _burst(j: Judged, threshold: float, offset_s: float) -> dict[str, Any]:
    return {"t_peak": j.t_peak - offset_s, "trees_minus_T": j.trees - threshold, "final_minus_T": j.final - threshold,
            "rise_db": j.rise_db, "peak_db": j.peak_db, "close": j.close, "gap_ok": j.gap_ok}


def lost_claps(det: LossDetector, claps: list[float], onsets: list[float], offset_s: float = 0.0) -> dict[str, Any]:
    """The clip's tp / fp / fn, every missed annotated clap (``onset``, ``loss``, ``best``: the best judged
    burst near it or None) and every false clap (``t``, ``from_onset``: signed distance to the nearest
    annotated clap, ``trees_minus_T``, ``close``), all in clip time."""
    missed, matched = unmatched(claps, onsets)
    out_missed = []
    for o in missed:
        b = best_near(det, o, offset_s)
        out_missed.append({"onset": o, "loss": loss_of(det, o, matched, offset_s),
                           "best": None if b is None else _burst(b, det.threshold, offset_s)})
    false = []
    for t in sorted(d for d in claps if d not in matched):
        rec = [j for j in det.judged if j.clap and abs(j.t_onset - offset_s - t) <= SAME_S]
        near = min(onsets, key=lambda o: abs(t - o)) if onsets else float("nan")
        false.append({"t": t, "from_onset": t - near,
                      "trees_minus_T": rec[0].trees - det.threshold if rec else float("nan"),
                      "close": bool(rec and rec[0].close)})
    return {"tp": len(onsets) - len(missed), "fp": len(false), "fn": len(missed),
            "missed": out_missed, "false": false}


def source_counts(rows: Iterable[dict[str, Any]]) -> tuple[int, int, int, float]:
    """A source's clips' ``lost_claps`` summed: tp, fp, fn and the per-clap F1 (0 when nothing is found)."""
    tp = fp = fn = 0
    for r in rows:
        tp, fp, fn = tp + int(r["tp"]), fp + int(r["fp"]), fn + int(r["fn"])
    return tp, fp, fn, (2 * tp / (2 * tp + fp + fn) if tp else 0.0)


def band_rows(det: LossDetector, vals: dict[int, tuple[float, ...]], y: np.ndarray, rate: int, claps: list[float],
              truth: list[float], offset_s: float = 0.0) -> list[dict[str, Any]]:
    """Every judged burst of ``det`` (which streamed ``y``, ``offset_s`` s of zeros first) that passed the
    gates and the gap, was a far call and scored under ``T`` (``trees_minus_T``), with whether the wait's
    score as a close call would lift it over ``T`` (``lifted``, ``clap_wait.close_call_score`` on ``y``),
    whether it lies near an annotated time (``near_truth``: peak 10 ms before to 60 ms after) and whether it
    is the best such burst near an annotated clap nobody found (``rescues``, 0 or 1). ``vals``: each burst's
    ``(peak_db,) + FEATURES`` by peak sample. Burst level: the gap and recent claps are not replayed."""
    wm = det.wait_model or SHIPPED
    missed, _ = unmatched(claps, truth)
    rows: list[dict[str, Any]] = []
    for j in det.judged:
        if j.clap or j.close or not (j.level_ok and j.rise_ok and j.gap_ok) or j.trees >= det.threshold:
            continue
        p = round(j.t_peak * rate)
        if p not in vals:
            raise ValueError(f"no values recorded for the burst at sample {p}")
        lifted = close_call_score(y, p, rate, vals[p], j.trees, wm) >= det.threshold
        t = j.t_peak - offset_s
        rows.append({"t_peak": t, "trees_minus_T": j.trees - det.threshold, "lifted": bool(lifted),
                     "near_truth": any(NEAR_S[0] <= t - o <= NEAR_S[1] for o in truth), "rescues": 0})
    for o in missed:                               # one rescue per missed clap: its best lifted burst
        near = [r for r in rows if r["lifted"] and NEAR_S[0] <= r["t_peak"] - o <= NEAR_S[1]]
        if near:
            max(near, key=lambda r: r["trees_minus_T"])["rescues"] = 1
    return rows
