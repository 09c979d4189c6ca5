#!/usr/bin/env python3
"""What teaching the venue (``calibrate --claps``) gives a user, held out, on every negative source.

Scenario (declared before the first run; no constant here was chosen on its outcome):

- **Sources and detector**: the negative sources of ``clap_false_claps.py`` (those with clips not
  labelled ``clap``). Each is a "room", judged by its own fold's detector, trained without it (the
  trees of ``TREES.json``, the wait's ``WaitModel`` of ``WAIT_FOLDS.json``, ``RING_...json``,
  ``MEL_LR.json`` in ``--folds``), route off, as that benchmark streams it. Every clip is resampled
  to 48 kHz (a lesson and a test are one recording each); 512-sample blocks.
- **Room part**: the source's negative clips in ``labels.csv`` order, joined end to end (no fade),
  cut in two halves by time; the lesson's room is the first half (at most ``ROOM_S``, 30 s; no
  source has more than 60 s, so it is always the first half).
- **Clap part**: a clapper from a source other than the room's, at the recorded level: ``k``
  (``clap_k_regular14.wav``, 14 claps) or ``tr`` (``tr_sample-3``, ``-32``, ``-64`` joined, 6
  claps; laptop microphone). Every room is taught once by each clapper that is not its own source.
  The lesson: ``clap_teach.teach(claps, room, settings=<the fold's>)``, refused as ``calibrate``
  refuses it (``lesson_problem``, or the ``ConfigError`` of no clap heard); a refused lesson is
  not written, so the user keeps the untaught detector.
- **Test**: the second half of the room (the clip parts it holds). False claps: the claps the
  detector reports on it alone, per minute of it, and the clip parts firing. Claps: the same
  clapper's clip(s) not used in the lesson (``k``: ``clap_k_mixed18.wav``, 18 claps; ``tr``:
  ``tr_sample-72``, ``-93``, ``-16``, ``-112``, ``-188`` joined, 10 claps) added at their recorded
  level onto the room's second half, looped (``numpy.resize``) when shorter than the claps; claps
  found are the annotated onsets matched within 60 ms (``evaluate.match``), and the unmatched
  reports on that mix are given too.
- The clap clips were in every fold's training set (only the room's source is held out), so the
  claps found are not held out: compare untaught with taught. The false claps are held out.

Prints one row per room and clapper and the totals (rooms where taught false claps fall / rise,
claps lost). A refused lesson's row also says what it would have given had it been written.

``--variant near``: the room rule (step 5 of ``clap_teach``) chosen on more of the room's sounds, a
rule declared before it was run: its negatives are the room bursts still firing after the threshold
step *and* every other room burst scoring at least ``threshold - clap_teach.SLACK`` (4 log-odds: the
module's own "near the threshold"); limit, side and ties as shipped, and only when a room burst still
fires. It has no fitted constant, so leaving one negative source out changes nothing. Shipped only if
taught false claps fall for most sources, no lesson loses a clap, and the teach tests pass.

``--variant spread`` (declared after ``near`` was run and rejected, before this one was): the threshold
step (3) may raise the threshold only to ``min(quietest - MARGIN, mean - 3 sd)`` of the taught claps'
scores (sample sd): the claps of the same hands in the test score lower than the few taught ones, and 3
sd is fixed a priori (a normal tail of 0.13 %), not fitted. Same criterion for shipping.

``--variant rule_only`` (declared after ``spread`` was run and rejected, before this one was): the room
never raises the threshold (step 3 off: its ceiling is minus infinity); every room burst that fires goes
to the room rule (step 5). No constant. Same criterion for shipping.

``--variant venue`` (issue 19's venue model, declared before its first run): the shipped lesson plus
``clap_venue``'s model (``teach(venue=True, venue_steps=True)``): the taught claps against every room burst scoring at
least ``threshold - SLACK`` in the lesson's standardised ``FEATURES``, a ridge logistic score (ridge
1.0, classes of equal weight) vetoing a burst the trees pass at room log-odds >= 3 (p > 0.95, the
refusal's "sure"); written only when, left one lesson burst out at a time, no taught clap is vetoed
and at least one firing room burst is; the bursts it vetoes no longer fire for the threshold step and
the room rule; a sure clap in the room it vetoes out of its fold no longer counts for the refusal.
No constant fitted here (ridge, 3 log-odds and SLACK fixed a priori). Shipped (default on in
``calibrate --claps``) only if false claps fall in total and for most sources that fire, no lesson
loses more claps than with the shipped teach, and the teach tests pass.

``--variant venue_only`` (declared after ``venue`` was run and rejected, before this one was): as
``venue``, but a written venue model replaces the threshold step and the room rule (``teach(venue=True)``,
what ``calibrate --claps --venue-model`` runs; ``venue`` passes ``venue_steps=True`` too): the threshold
stays where the claps put it and no room rule is written; a lesson whose model is not written is the
shipped one. The ``venue`` run lost usc/tr's claps 10 -> 7 by the room rule
its model unblocked (written without the model's veto: the same 7). No constant. Same criterion.

    .venv/bin/python benchmarks/clap_teach_venues.py --folds /tmp/claps30 [--variant NAME]
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from _reference import SHARED_DATA, data_refused
from clap_false_claps import load_folds

from sensekit.audio import clap_teach
from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_features import BurstFeatures
from sensekit.audio.clap_teach import SLACK, lesson_problem, teach
from sensekit.audio.clap_wait import WaitModel
from sensekit.errors import ConfigError
from sensekit.evaluation.audio.clap_training import resample
from sensekit.evaluation.audio.evaluate import Clip, match, read_clips, read_wav

RATE = 48000
ROOM_S = 30.0
BLOCK = 512
#: clapper: (lesson clips, test clips), all of the clapper's source
CLAPPERS = {
    "k": (("clap_k_regular14.wav",), ("clap_k_mixed18.wav",)),
    "tr": (("tr_sample-3.wav", "tr_sample-32.wav", "tr_sample-64.wav"),
           ("tr_sample-72.wav", "tr_sample-93.wav", "tr_sample-16.wav", "tr_sample-112.wav", "tr_sample-188.wav")),
}


@dataclass
class Joined:
    x: np.ndarray                              # 48 kHz, float64
    spans: list[tuple[str, int, int]]          # (clip name, first sample, end sample)
    onsets: list[float]                        # annotated onsets, s into x


def joined(clips: list[Clip]) -> Joined:
    parts, spans, onsets, at = [], [], [], 0
    for c in clips:
        x, rate = read_wav(SHARED_DATA / c.file)
        y = (resample(x, rate, RATE) if rate != RATE else x).astype(np.float64)
        spans.append((c.file.split("/")[-1], at, at + len(y)))
        onsets += [at / RATE + t for t in c.onsets]
        parts.append(y)
        at += len(y)
    return Joined(np.concatenate(parts), spans, onsets)


def stream(x: np.ndarray, settings: dict[str, Any]) -> list[float]:
    det = ClapDetector(**settings)
    y = np.ascontiguousarray(x, np.float32)
    return [c.t for k, i in enumerate(range(0, len(y), BLOCK))
            for c in det.process(y[i:i + BLOCK], i / RATE, RATE, index=k)]


@dataclass
class Outcome:
    false: int           # claps reported on the room's second half alone
    parts_firing: int
    found: int           # annotated claps matched on the mix
    extra: int           # unmatched reports on the mix


def measure(settings: dict[str, Any], room: Joined, half: int, mix: np.ndarray, truth: list[float]) -> Outcome:
    rest = room.x[half:]
    fired = stream(rest, settings)
    names = {n for t in fired for n, a, b in room.spans if a <= half + t * RATE < b}
    m = match(stream(mix, settings), truth)
    return Outcome(len(fired), len(names), m.tp, m.fp)


def near(left: list[BurstFeatures], room: list[BurstFeatures], threshold: float) -> list[BurstFeatures]:
    """``--variant near``: the bursts still firing and every room burst within ``SLACK`` of the threshold."""
    ids = {id(f) for f in left}
    return left + [f for f in room if id(f) not in ids and f.score >= threshold - SLACK]


def spread(scores: list[float]) -> float:
    """``--variant spread``: the threshold's ceiling also 3 sd under the taught claps' mean score."""
    v = np.asarray(scores, np.float64)
    sd = float(np.std(v, ddof=1)) if len(v) > 1 else 0.0
    return min(float(v.min()) - clap_teach.MARGIN, float(v.mean()) - 3.0 * sd)


def taught_row(base: dict[str, Any], room: Joined, half: int, lc: Joined, tc: Joined,
               mix: np.ndarray) -> tuple[Outcome, Outcome, str, bool]:
    """(untaught, what the user gets, what the lesson said, refused) for one room and clapper."""
    before = measure(base, room, half, mix, tc.onsets)
    try:
        lesson = teach(lc.x.astype(np.float32), room.x[:half].astype(np.float32), RATE, settings=base,
                       **TEACH)
    except ConfigError as e:
        return before, before, f"refused: {e}", True
    problem = lesson_problem(lesson)
    taught = {**base, **{k.split(".", 1)[1]: v for k, v in lesson.values.items()}}
    after = measure(taught, room, half, mix, tc.onsets)
    said = f"{lesson.claps_heard} claps, {lesson.room_fired} fired, {lesson.rule}; T {lesson.threshold:g}"
    if lesson.venue:
        said += f"; {lesson.venue}"
    if problem is None:
        return before, after, said, False
    return before, before, (f"refused: {problem} (if written: {said}; false {after.false}, parts "
                            f"{after.parts_firing}, claps {after.found}, unmatched {after.extra})"), True


@dataclass
class Totals:
    n: int = 0
    refused: int = 0
    fell: int = 0
    rose: int = 0
    lost: int = 0
    minutes: float = 0.0
    false: tuple[int, int] = (0, 0)
    found: tuple[int, int] = (0, 0)
    truth: int = 0

    def add(self, before: Outcome, after: Outcome, refused: bool, minutes: float, truth: int) -> None:
        self.n += 1
        self.refused += refused
        self.fell += after.false < before.false
        self.rose += after.false > before.false
        self.lost += after.found < before.found
        self.minutes += minutes
        self.false = (self.false[0] + before.false, self.false[1] + after.false)
        self.found = (self.found[0] + before.found, self.found[1] + after.found)
        self.truth += truth

    def text(self) -> str:
        return (f"{self.n} lessons ({self.refused} refused): taught false claps fell in {self.fell}, rose in "
                f"{self.rose}; {self.false[0]} -> {self.false[1]} false claps over {self.minutes:.1f} min "
                f"({self.false[0] / self.minutes:.1f} -> {self.false[1] / self.minutes:.1f} a minute); claps "
                f"found {self.found[0]} -> {self.found[1]} of {self.truth} (lost in {self.lost} lessons)")


#: what ``--variant`` passes to ``teach`` (its arguments for the variant)
TEACH: dict[str, Any] = {}


def set_variant(name: str) -> None:
    if name == "near":
        TEACH.update(negatives=near)
    elif name == "spread":
        TEACH.update(ceiling_rule=spread)
    elif name == "rule_only":
        TEACH.update(ceiling_rule=lambda scores: float("-inf"))
    elif name == "venue":
        TEACH.update(venue=True, venue_steps=True)
    elif name == "venue_only":
        TEACH.update(venue=True)
    elif name == "off":
        TEACH.clear()
    elif name:
        raise SystemExit(f"--variant must be near, spread, rule_only, venue, venue_only or off, got {name!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", type=Path, required=True)
    ap.add_argument("--sources", default="")
    ap.add_argument("--variant", default="")
    args = ap.parse_args(argv)
    if data_refused(SHARED_DATA):
        return 2
    set_variant(args.variant)
    trees, folds, ring, lr = load_folds(args.folds)
    clips = read_clips(SHARED_DATA)
    by_name = {c.file.split("/")[-1]: c for c in clips}
    negatives = sorted({c.source for c in clips if c.label != "clap"})
    negatives = [s for s in negatives if not args.sources or s in args.sources.split(",")]
    print(f"variant: {args.variant or 'shipped'}")
    print("| room (test s) | clapper | lesson | false claps/min untaught -> taught | clip parts firing | "
          "claps found (mix) | unmatched on the mix |")
    print("|---|---|---|---|---|---|---|")
    tot, per = Totals(), {}
    for s in negatives:
        f = folds[s]
        base = {"model": trees[s], "threshold": f["T"], "noise_route": False,
                "wait_model": WaitModel(ring[s], f["T"], f["margin"], f["theta"], lr[s].w, lr[s].b)}
        room = joined([c for c in clips if c.source == s and c.label != "clap"])
        half = min(len(room.x) // 2, int(ROOM_S * RATE))
        rest_min = (len(room.x) - half) / RATE / 60.0
        parts = sum(1 for _, a, b in room.spans if b > half)
        per[s] = Totals()
        for who, (lesson_names, test_names) in CLAPPERS.items():
            if by_name[lesson_names[0]].source == s:
                continue
            lc, tc = joined([by_name[n] for n in lesson_names]), joined([by_name[n] for n in test_names])
            n = max(len(room.x) - half, len(tc.x))
            mix = np.resize(room.x[half:], n) + np.pad(tc.x, (0, n - len(tc.x)))
            before, after, said, refused = taught_row(base, room, half, lc, tc, mix)
            for t in (tot, per[s]):
                t.add(before, after, refused, rest_min, len(tc.onsets))
            print(f"| {s} ({rest_min * 60:.1f}) | {who} | {said} | {before.false / rest_min:.1f} -> "
                  f"{after.false / rest_min:.1f} ({before.false} -> {after.false}) | {before.parts_firing} -> "
                  f"{after.parts_firing} of {parts} | {before.found} -> {after.found} of {len(tc.onsets)} | "
                  f"{before.extra} -> {after.extra} |", flush=True)
    print("\nper room (both clappers):")
    for s, t in per.items():
        print(f"  {s:16s} {t.text()}")
    print(f"\n{tot.text()}")
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
