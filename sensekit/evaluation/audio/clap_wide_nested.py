"""The thirty-eighth pass's nesting rule for the wider close-call wait (docs/claps_history.md).

For a held-out source, the wait's reach ``W`` under ``T`` is the widest candidate whose lifted bursts on
the *other* sources' clips (burst level, ``clap_lost.band_rows`` rows, each source through its own
held-out fold) lie on no negative clip that does not already fire today. Pure bookkeeping over rows.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

REACHES: tuple[float, ...] = (1.5, 2.0, 2.5, 3.0)


def new_negative_clips(band: Iterable[Mapping[str, Any]], firing: set[str], reach: float) -> set[str]:
    """The negative clips of ``band`` on which a wait down to ``T - reach`` lifts a burst and which are
    not in ``firing`` (the negative clips that fire today). A row needs ``clip``, ``negative``,
    ``lifted`` and ``trees_minus_T``."""
    return {r["clip"] for r in band
            if r["negative"] and r["lifted"] and r["trees_minus_T"] >= -reach and r["clip"] not in firing}


def nested_reach(band: Sequence[Mapping[str, Any]], firing: set[str], sources: Sequence[str],
                 reaches: Sequence[float] = REACHES) -> dict[str, float]:
    """For each held-out source in ``sources``, the widest of ``reaches`` (sorted ascending; the smallest is
    taken when none qualifies) whose ``new_negative_clips`` on the other sources' rows is empty. Each row
    of ``band`` also needs ``source``."""
    if not reaches:
        raise ValueError("nested_reach needs at least one candidate reach")
    ordered = sorted(float(w) for w in reaches)
    unknown = {r["source"] for r in band} - set(sources)
    if unknown:
        raise ValueError(f"band rows from source(s) not in the held-out list: {', '.join(sorted(unknown))}")
    chosen: dict[str, float] = {}
    for s in sources:
        others = [r for r in band if r["source"] != s]
        ok = [w for w in ordered if not new_negative_clips(others, firing, w)]
        chosen[s] = ok[-1] if ok else ordered[0]
    return chosen
