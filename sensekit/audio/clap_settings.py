"""The clap detector's settings: the ``clap`` group of the settings table, declared here.

``ClapDetector`` (``clap.py``) inherits them into its group (a ``Tunable`` takes the settings of
its plain mixins), so ``sensekit settings``, ``--set clap.threshold=2``, profiles, OSC and Shift+S
know them. What each one does:

``room_feature``/``room_limit``/``room_above`` (a venue's rule, learned by ``sensekit calibrate
--claps``, ``clap_teach.py``: bursts beyond the limit on that feature are the room's sounds;
"none" by default), ``venue_model`` (the room's clap-like sounds, learned by ``calibrate --claps
--venue-model``: a burst the trees pass is vetoed when it is the room's with a clear margin; empty),
``noise_route`` (on by default: a burst rising < 24 dB over a steady floor is judged by the noise expert,
``clap_floor.py``; ``calibrate --claps`` switches it off in a room whose claps stand far over its floor),
``close_call_wait`` (on: a burst within ``clap_wait.MARGIN`` of the trees' threshold waits 130 ms
for its ring and log-mel, ``clap_wait.py``), ``threshold`` (log-odds, default the shipped
``clap_model.THRESHOLD``, range ``SCORE_RANGE`` = what the shipped trees can score; lower finds softer,
odder claps and more false ones), ``below_claps_db`` (30: a burst that far under the loudest clap of the
last 10 s is not a clap), ``min_level`` (activity level 0..100 of the 1 ms peak after ``gain``; default
20 = -54 dBFS; the clapper's +/-), ``min_rise_db`` (8: a clap 5-10 dB over steady noise rises little
more in the clap band; 10 until issue 19), ``min_gap_ms`` (75).

A change applies at the next block. Not in the table: ``gain`` (the audio stage's), ``model``
(another tree model)."""
from __future__ import annotations

import math

from sensekit.audio.clap_features import FEATURES, score_range
from sensekit.audio.clap_model import MODEL as SHIPPED_MODEL, THRESHOLD as SHIPPED_THRESHOLD
from sensekit.settings import Setting, setting

__all__ = ["SCORE_RANGE", "ClapSettings"]

#: the lowest and highest score the shipped trees can give, rounded outwards (whole log-odds)
_LOW, _HIGH = score_range(SHIPPED_MODEL)
SCORE_RANGE = (float(math.floor(_LOW)), float(math.ceil(_HIGH)))


class ClapSettings:
    """The ``clap`` group's declarations (the module docstring says what each does);
    ``ClapDetector`` reads them on every block."""

    threshold: Setting[float] = setting(
        SHIPPED_THRESHOLD, "score (log-odds) a burst needs: lower finds softer, odder "
        f"claps and more false ones; {SCORE_RANGE[0]:g} accepts every burst that passes "
        f"min_level and min_rise_db, {SCORE_RANGE[1]:g} none (the shipped model's range)",
        lo=SCORE_RANGE[0], hi=SCORE_RANGE[1], step=0.25)
    min_level = setting(20.0, "level (0..100, after gain) a clap's 1 ms peak must reach; 20 = -54 dBFS",
                        unit="level", lo=0, hi=100, step=5.0)
    min_rise_db = setting(8.0, "rise a burst needs over the 35..10 ms before its peak", unit="dB",
                          lo=8, hi=40)
    min_gap_ms = setting(75.0, "claps closer than this are one clap (3/4 of the fastest clapping)",
                         unit="ms", lo=0, hi=1000)
    below_claps_db = setting(
        30.0, "a burst this far under the loudest clap of the last 10 s is "
        "not a clap (one person's claps vary by 20 dB at most)", unit="dB", lo=10, hi=120, step=5.0)
    room_feature = setting("none", "a feature on which this room's clap-like sounds differ from "
                           "its claps (learned by `sensekit calibrate --claps`; none: no room rule)",
                           kind="choice", choices=("none", *FEATURES))
    room_limit = setting(0.0, "bursts whose room_feature is beyond this are the room's, not claps "
                         "(above it when room_above, else below)", lo=-1000, hi=1000)
    room_above = setting(True, "the room's sounds lie above room_limit (else below)")
    venue_model: Setting[tuple[float, ...]] = setting(
        (), "the room's clap-like sounds, learned by `calibrate --claps --venue-model` (clap_venue): a burst "
        "the trees pass is vetoed when it is the room's; none: no model", kind="numbers")
    noise_route = setting(True, "bursts rising < 24 dB over a steady floor (spread < 2 dB: white or "
                          "pink noise, a fan) are judged by the noise expert (clap_floor; "
                          "`sensekit calibrate --claps` keeps it on for a steady room whose claps "
                          "stand little over it, else switches it off)")
    close_call_wait = setting(True, "a burst the shipped trees call close (within clap_wait.MARGIN of "
                              "the threshold) waits until 130 ms after its peak are in and is decided "
                              "by its ring and log-mel (clap_wait); off: every burst ~40 ms after its peak")
