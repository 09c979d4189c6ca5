"""A keyboard heard only under claps: its key strokes as the background of the claps' mix copies
(docs/claps_history.md, thirty-sixth pass). Declared before any held-out figure of the pass.

The thirty-third pass added an IBM Model M's key strokes (``deb_buckle``, Debian's bucklespring-data)
as standalone negatives: typing held out fell 37 -> 29 false claps, but eldar's claps fell below the
line (per-clap F1 1.000 -> 0.533); the thirty-fourth pass weighed the keyboard as one average source and
found that what keeps typing down is what pushes eldar down. Here the same keyboard takes another form:
its bursts are heard by the trees **only next to real claps**, as the background of two more mix copies
of every clap clip, the way the shipped ``mix0`` / ``mix6`` copies put another source's speech, music or
noise under the claps.

**The copies** (``keyboard_mixes``): for every clap clip of the developer set (real and synthetic; the
clips ``clap_training.collect`` streams with label ``clap``) and each of ``COPIES`` (``kb0``: 0 dB,
``kb6``: +6 dB, power over the whole clip, ``clap_training.mixed``), one of the keyboard clips
(``clap_debian.debian_clips`` of ``deb_buckle``: nine clips, 218 key bursts) chosen by
``seed_of(clip, copy)``, resampled to the clip's rate and looped under it. The copy's bursts
(``judged_bursts``) are labelled by the clip's clap times (``label_bursts``; clips without times by
``recipe_onsets``, as ``collect``): claps positive, every key burst between them negative. Source: the
clip's; background: ``KEYBOARD``; variant: the copy's name.

**The fit** (``benchmarks/clap_keyboard_background.py``): ``clap_training.train`` on the developer
bursts (``PATCH.npz`` less ``sp0``) joined with these copies, ``leave_out=[s]`` (which drops the held-out
source's own copies), the same trainer and weights (balanced by (source, class): the copies count in
their clap clip's source, as the mix copies do). No standalone keyboard burst and no other Debian source.
``T`` nested as shipped (``nested_thresholds`` on the developer bursts); the close-call wait of today's
folds kept (margin, theta, ring trees, log-mel weights). Control: the folds refit without the copies
equal today's trees.

**Ship rule** (the thirty-fourth pass's): held out, streamed at offsets 0 and 517 (route off, 512-sample
blocks) against today's folds: fewer negative clips fire, no clap source's per-clap F1 drops, sharwin's
recipe F1 does not drop, white, pink and babble at 10 dB do not lose, p50 decision delay <= 42 ms.
Otherwise evaluation only.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sensekit.evaluation.audio.clap_debian import SOURCES, DebianSourceError, debian_clips
from sensekit.evaluation.audio.clap_training import (
    Bursts,
    _Clips,
    bursts_of_rows,
    judged_bursts,
    label_bursts,
    mixed,
    resample,
    seed_of,
)
from sensekit.evaluation.audio.evaluate import recipe_onsets

KEYBOARD = "deb_buckle"                        # the background's source name (bucklespring's Model M)
COPIES: dict[str, float] = {"kb0": 0.0, "kb6": 6.0}   # copy name -> clip power over the keyboard's, dB


def keyboard_clips(cache: Path) -> list[tuple[np.ndarray, int]]:
    """The keyboard's clips (samples, rate), as the thirty-third pass built them from ``cache``."""
    src = [s for s in SOURCES if s.name == KEYBOARD]
    return [(x, r) for _, x, r in debian_clips(cache, src)]


def keyboard_under(x: np.ndarray, rate: int, keyboard: Sequence[tuple[np.ndarray, int]], copy: str,
                   rng: np.random.Generator) -> np.ndarray:
    """Clip ``x`` with one of the ``keyboard`` clips (picked by ``rng``, at ``rate``) mixed under it
    at ``COPIES[copy]`` dB."""
    if copy not in COPIES:
        raise ValueError(f"unknown keyboard copy {copy!r}; one of {sorted(COPIES)}")
    if not keyboard:
        raise ValueError("no keyboard clip to mix under the claps")
    kx, kr = keyboard[int(rng.integers(len(keyboard)))]
    bg = kx if kr == rate else resample(kx, kr, rate)
    return mixed(x, bg, COPIES[copy])


def keyboard_mixes(data: Path, keyboard: Sequence[tuple[np.ndarray, int]], *,
                   copies: Sequence[str] = tuple(COPIES),
                   progress: Callable[[str], None] | None = None) -> Bursts:
    """Every clap clip's ``copies`` over the keyboard: their judged bursts, labelled by the claps."""
    pool = _Clips(Path(data))
    rows: list[tuple[Any, ...]] = []
    counts: dict[str, int] = {}
    for c in pool.clips:
        if c.label != "clap":
            continue
        x, rate = pool.audio[c.file]
        onsets = c.onsets or recipe_onsets(x, rate)
        counts[c.file] = len(onsets)
        for copy in copies:
            y = keyboard_under(x, rate, keyboard, copy, np.random.default_rng(seed_of(c.file, copy)))
            feats = judged_bursts(y, rate)
            rows.extend((f.vector(), lab, c.source, KEYBOARD, copy, c.file)
                        for f, lab in zip(feats, label_bursts(feats, onsets)))
        if progress is not None:
            progress(c.file)
    if not rows:
        raise DebianSourceError("the keyboard mixes gave no burst (no clap clip in the data?)")
    return bursts_of_rows(rows, counts, {c.file: c.label for c in pool.clips if c.file in counts})


__all__ = ["COPIES", "KEYBOARD", "keyboard_clips", "keyboard_mixes", "keyboard_under"]
