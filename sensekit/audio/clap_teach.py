"""Teaching the clap detector a venue: a few claps, then the room as it usually sounds.

``teach(claps, room, rate)`` streams both recordings through the detector with the given
settings and returns a ``ClapLesson``: what it heard and the settings that make this room's
clap-like sounds stop firing while every taught clap still does (``sensekit calibrate
--claps`` writes them into the venue profile; the detector reads them like any setting):

1. **Claps heard**: the claps the detector reports in ``claps``. If it reports none, the
   bursts within ``SLACK`` of the threshold count (a quiet or distant clapper), and the
   threshold is lowered to just under the quietest of them (``MARGIN``).
2. **Room sounds that fire**: the claps it reports in ``room`` (which holds none).
   **Venue model** (``venue=True``, ``calibrate --claps --venue-model``; off by default;
   ``clap.venue_model``, ``clap_venue.py``): the taught claps
   against every room burst scoring at least ``threshold - SLACK`` (over or near the threshold),
   a ridge logistic score on the lesson's standardised ``FEATURES``; written only when, left one
   burst out at a time, no taught clap is vetoed and a room burst that fires is
   (``clap_venue.LooResult.enabled``; else ``clap.venue_model`` is written empty). A written
   model replaces steps 3 and 5 (the threshold stays where the claps put it, no room rule; what
   still fires is counted on the room streamed with the model: a veto also frees a burst the
   vetoed one held back within ``min_gap_ms``);
   a model not written leaves the lesson as without it. (``venue_steps=True``, the rejected
   ``--variant venue`` of ``benchmarks/clap_teach_venues.py``, keeps steps 3 and 5 for the room
   bursts the model does not veto.)
3. **Threshold**: raised to just over the room's highest-scoring false clap when that
   stays ``MARGIN`` under every taught clap's score.
4. **Noise route** (``clap.noise_route``, ``clap_floor``; on by default): kept on when the room's floor
   is steady (the median ``floor_spread_db`` over the room recording, every 0.25 s, under
   ``FLOOR_SPLIT_DB``, 2 dB) **and** the taught claps stand less than ``ROUTE_SNR_DB`` over
   it (the median clap's loudest 5 ms RMS over the floor RMS: the square root of the median
   50 ms power of the room). The limit is the route's own rise split (24 dB), fixed a priori:
   a clap standing more than that over the floor rises more than that over it (its 1 ms peak
   is at least its 5 ms RMS), so the expert would never judge the venue's claps, only the
   room's quiet sounds; otherwise switched off. When the decision differs from the setting
   it started from, the claps are streamed again with it, and the room is streamed with it,
   for steps 3 and 5.
5. **Room rule** (``clap.room_feature``, ``room_limit``, ``room_above``): if room sounds
   still fire, the one feature (``clap_features.FEATURES``) and side on which the most of
   them lie beyond every taught clap; the limit is half-way between the taught claps'
   extreme and the nearest such room sound. Ties go to the widest gap relative to the taught
   claps' spread.

**Is the lesson sound?** ``lesson_problem`` says what is wrong with one that must not be
written: fewer than ``MIN_CLAPS`` claps heard in ``claps``, or ``ROOM_CLAPS`` or more room
bursts the untaught detector scores ``CONFIDENT`` log-odds over its threshold (someone
clapped while the room was recorded, or the room's own sounds are sure claps to it - typing,
drums, footsteps, ``benchmarks/clap_teach_venues.py``: a lesson that rejects them rejects claps).
With the venue model, a sure clap it vetoes out of its fold does not count: the room's sounds
were told from the taught claps, so the model learned them instead of the lesson being refused.

What it cannot do: learn a room sound that is a clap in every feature (someone else
clapping), or claps it never heard. Cost: two streaming passes (~1 s for 40 s of audio).
Errors: ``ConfigError`` when no clap at all is heard in ``claps`` (it says so).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from sensekit.audio.clap import ClapDetector, room_side
from sensekit.audio.clap_loudness import clap_loudness
from sensekit.audio.clap_features import FEATURES, BurstFeatures
from sensekit.audio.clap_floor import FLOOR_SPLIT_DB, RISE_SPLIT_DB, FloorRoute
from sensekit.audio.clap_venue import VETO, learn
from sensekit.errors import ConfigError

SLACK = 4.0      # log-odds under the threshold a taught clap may score when none passes
MARGIN = 1.0     # log-odds kept between the threshold and the quietest taught clap
ROUTE_SNR_DB = RISE_SPLIT_DB   # claps standing less than this over a steady floor: noise route
MIN_CLAPS = 3    # claps a lesson needs heard in the clap part
CONFIDENT = 3.0  # log-odds over the untaught threshold (p > 0.95): a room burst that is a sure clap
ROOM_CLAPS = 2   # sure claps in the room part that make the lesson unsound (one bang is a room sound)


@dataclass
class ClapLesson:
    """What a teaching pass heard and the settings it chose (``values``: ``{key: value}``)."""
    claps_heard: int
    room_seconds: float
    room_bursts: int
    room_fired: int
    room_rejected: int
    threshold: float
    rule: str
    values: dict[str, Any] = field(default_factory=dict)
    noise_route: bool = False
    clap_snr_db: float = float("nan")       # the claps' loudest 5 ms RMS over the floor RMS
    floor_spread_db: float = float("nan")   # the room floor's median floor_spread_db
    room_claps: list[float] = field(default_factory=list)  # room bursts (onset, s) scored sure claps
    venue: str = ""                         # what the venue model learned (empty: not tried)

    @property
    def route_text(self) -> str:
        """What was decided about the noise route, and why (one line)."""
        steady = self.floor_spread_db < FLOOR_SPLIT_DB
        why = (f"claps stand {self.clap_snr_db:.0f} dB over a "
               f"{'steady' if steady else 'moving'} floor, spread {self.floor_spread_db:.1f} dB)")
        return f"noise route: {'on' if self.noise_route else 'off'} ({why}"

    def summary(self) -> str:
        return (f"heard {self.claps_heard} claps; the room ({self.room_seconds:.0f} s, "
                f"{self.room_bursts} bursts) gave {self.room_fired} false claps, "
                f"{self.room_rejected} now rejected; threshold {self.threshold:g}; {self.rule}; "
                + (f"{self.venue}; " if self.venue else "") + self.route_text)


def lesson_problem(lesson: ClapLesson) -> str | None:
    """Why ``lesson`` must not be written (one phrase), or None when it is sound."""
    if lesson.claps_heard < MIN_CLAPS:
        return (f"heard {lesson.claps_heard} clap{'s' * (lesson.claps_heard != 1)} in the clap "
                f"part ({MIN_CLAPS} or more are needed)")
    if len(lesson.room_claps) >= ROOM_CLAPS:
        at = ", ".join(f"{t:.1f}" for t in lesson.room_claps[:4])
        return (f"heard {len(lesson.room_claps)} sure claps in the room part ({at} s into it), "
                "which must hold none (someone clapped, or the room's own sounds - typing, drums, "
                "footsteps - are sure claps to the detector: it cannot be taught those)")
    return None


def room_floor(room: np.ndarray, rate: int) -> tuple[float, float]:
    """(median ``floor_spread_db`` every 0.25 s, floor RMS) of the room recording ``room``:
    the floor RMS is the square root of the median power of its 50 ms frames (a knock or a
    word does not move it)."""
    fr = FloorRoute(rate)
    x = np.ascontiguousarray(room, np.float32)
    spreads = [fr.floor_spread_db(x, p) for p in range(fr.pre, len(x), max(1, rate // 4))]
    n = max(1, rate // 20)
    frames = x[: len(x) // n * n].astype(np.float64).reshape(-1, n)
    power = float(np.median(np.mean(frames ** 2, axis=1))) if len(frames) else 0.0
    spread = float(np.median(spreads)) if spreads else float("inf")
    return spread, float(np.sqrt(power))


def clap_snr_db(claps: np.ndarray, rate: int, onsets: list[float], floor_rms: float) -> float:
    """The taught claps' median loudest 5 ms RMS over ``floor_rms``, in dB."""
    loud = clap_loudness(np.asarray(claps, np.float64), rate, onsets)
    return float(20.0 * np.log10(max(loud, 1e-12) / max(floor_rms, 1e-12)))


def _stream(x: np.ndarray, rate: int, settings: Mapping[str, Any], gain: float,
            block: int = 1024, detector: type[ClapDetector] = ClapDetector) -> tuple[list[float], list[BurstFeatures]]:
    det = detector(gain=gain, **settings)
    det.keep_features = True
    claps: list[float] = []
    for k, i in enumerate(range(0, len(x), block)):
        claps += [c.t for c in det.process(x[i:i + block], i / rate, rate, index=k)]
    return claps, det.features


def _of(claps: list[float], feats: list[BurstFeatures]) -> list[BurstFeatures]:
    """The measured bursts of the reported claps (a clap's ``t`` is its burst's onset)."""
    by_t = {f.t_onset: f for f in feats}
    return [by_t[t] for t in claps if t in by_t]


def _rule(claps: np.ndarray, room: np.ndarray) -> tuple[int, bool, float, int] | None:
    """(feature, above, limit, rejected) of the best one-feature rule, or None."""
    best: tuple[float, float, int, bool, float] | None = None
    for j in range(len(FEATURES)):
        c, r = claps[:, j], room[:, j]
        if not np.all(np.isfinite(c)):
            continue
        r = r[np.isfinite(r)]
        spread = float(np.std(c)) + 1e-3 * (abs(float(np.mean(c))) + 1.0)
        for above in (True, False):
            edge = float(c.max()) if above else float(c.min())
            beyond = r[r > edge] if above else r[r < edge]
            if not len(beyond):
                continue
            near = float(beyond.min()) if above else float(beyond.max())
            gap = abs(near - edge)
            key = (float(len(beyond)), gap / spread)
            if best is None or key > best[:2]:
                best = (*key, j, above, (edge + near) / 2.0)
    if best is None:
        return None
    return best[2], best[3], round(best[4], 4), int(best[0])


def _negatives(left: list[BurstFeatures], room: list[BurstFeatures], threshold: float) -> list[BurstFeatures]:
    """The room bursts the room rule is chosen to reject: those still firing (``left``)."""
    return left


def _with_left(rule: str, left: list[BurstFeatures], fired: list[BurstFeatures]) -> str:
    """The rule line, and how many room bursts still fire when some do (never "needed" of those)."""
    return f"{rule}; after the lesson {len(left)} room bursts fire (of {len(fired)} before)" if left else rule


def _ceiling(scores: list[float]) -> float:
    """The highest threshold the room may raise it to: ``MARGIN`` under the quietest taught clap."""
    return min(scores) - MARGIN


def teach(claps: np.ndarray, room: np.ndarray, rate: int, *,
          settings: Mapping[str, Any] | None = None, gain: float = 50.0,
          venue: bool = False, venue_steps: bool = False,
          negatives: Callable[[list[BurstFeatures], list[BurstFeatures], float], list[BurstFeatures]] | None = None,
          ceiling_rule: Callable[[list[float]], float] | None = None,
          detector: type[ClapDetector] | None = None) -> ClapLesson:
    """Learn a venue from ``claps`` (someone clapping a few times) and ``room`` (the room
    without claps, ~30 s); ``settings`` are the clap settings to start from; ``venue``: learn
    the venue model, which when written replaces the threshold step and the room rule
    (``venue_steps``: keeps them, for the benchmark's rejected variant only). ``negatives`` and
    ``ceiling_rule``: the room rule's negatives and the threshold's ceiling in place of the shipped
    ``_negatives`` and ``_ceiling`` (None: those; ``benchmarks/clap_teach_venues.py``'s rejected
    variants only); ``detector``: the class of the detectors the lesson streams (None:
    ``ClapDetector``; ``benchmarks/clap_teach_route.py --expert-from``'s route)."""
    made = ClapDetector if detector is None else detector
    base = {k: v for k, v in (settings or {}).items()
            if k not in ("room_feature", "room_limit", "room_above", "venue_model")}
    threshold = float(base.get("threshold", ClapDetector.SETTINGS["threshold"].default))
    heard, feats = _stream(claps, rate, base, gain, detector=made)
    taught = _of(heard, feats)
    values: dict[str, Any] = {}
    untaught = threshold
    if len(taught) < MIN_CLAPS:
        low = {**base, "threshold": threshold - SLACK}
        heard, feats = _stream(claps, rate, low, gain, detector=made)
        taught = _of(heard, feats)
        if not taught:
            raise ConfigError("calibrate --claps heard no clap in the clap part of the recording "
                              "(clap louder or nearer the microphone, or give more seconds)")
        threshold = round(min(f.score for f in taught) - MARGIN, 2)
    spread, floor_rms = room_floor(room, rate)
    snr = clap_snr_db(claps, rate, [f.t_onset for f in taught], floor_rms)
    route = spread < FLOOR_SPLIT_DB and snr < ROUTE_SNR_DB
    values["clap.noise_route"] = route
    if route != bool(base.get("noise_route", ClapDetector.SETTINGS["noise_route"].default)):
        base = {**base, "noise_route": route}
        heard, feats = _stream(claps, rate, {**base, "threshold": threshold}, gain, detector=made)
        taught = _of(heard, feats) or taught
    ceiling = (ceiling_rule or _ceiling)([f.score for f in taught])
    fired_t, room_feats = _stream(room, rate, {**base, "threshold": threshold}, gain, detector=made)
    fired = _of(fired_t, room_feats)
    room_s = len(room) / rate
    rule = "no room rule needed"
    left = fired
    sure = [f for f in room_feats if f.score >= untaught + CONFIDENT]
    said = ""
    steps = True
    if venue:
        left, sure, said = _venue(taught, fired, room_feats, threshold, sure, values)
        steps = venue_steps or not values["clap.venue_model"]   # a written model replaces steps 3, 5
        if not steps:       # what fires with the model: the room streamed with it (a veto also frees
            rule = "no room rule (the venue model replaces it)"   # a burst a vetoed one held back)
            model = {**base, "threshold": threshold, "venue_model": values["clap.venue_model"]}
            left = _of(*_stream(room, rate, model, gain, detector=made))
    if left and steps:
        top = max(f.score for f in left) + 0.25
        if top <= ceiling:
            threshold = max(threshold, round(top, 2))
        left = [f for f in left if f.score >= threshold]
    if left and steps:
        C = np.array([f.vector() for f in taught])
        R = np.array([f.vector() for f in (negatives or _negatives)(left, room_feats, threshold)])
        found = _rule(C, R)
        if found is not None:
            j, above, limit, _ = found
            values.update({"clap.room_feature": FEATURES[j], "clap.room_limit": limit,
                           "clap.room_above": above})
            rule = (f"room rule: bursts with {FEATURES[j]} {'above' if above else 'below'} "
                    f"{limit:g} are the room's")
            left = [f for f in left if not (np.isfinite(getattr(f, FEATURES[j]))
                                            and room_side(getattr(f, FEATURES[j]), limit, above))]
        else:
            rule = "no single feature tells the room's sounds from the claps"
    values["clap.threshold"] = threshold
    return ClapLesson(len(taught), room_s, len(room_feats), len(fired), len(fired) - len(left),
                      threshold, _with_left(rule, left, fired), values, route, snr, spread,
                      [f.t_onset for f in sure], said)


def _venue(taught: list[BurstFeatures], fired: list[BurstFeatures], room: list[BurstFeatures],
           threshold: float, sure: list[BurstFeatures], values: dict[str, Any]
           ) -> tuple[list[BurstFeatures], list[BurstFeatures], str]:
    """The venue model step: (room bursts still firing, sure claps it did not veto out of their
    fold, what it learned); writes ``clap.venue_model`` into ``values``."""
    values["clap.venue_model"] = ()
    near = [f for f in room if f.score >= threshold - SLACK]
    ids = {id(f) for f in fired}
    found = learn(np.array([f.vector() for f in taught]), np.array([f.vector() for f in near]),
                  np.array([id(f) in ids for f in near], bool))
    if found is None:
        return fired, sure, "venue model: no room burst near the threshold to learn"
    if not found.enabled:
        why = (f"{found.claps_vetoed} taught clap{'s' * (found.claps_vetoed != 1)} would be vetoed"
               if found.claps_vetoed else "it would veto no room burst that fires")
        return fired, sure, f"venue model: not written ({why}, left out one at a time)"
    values["clap.venue_model"] = found.model.numbers()
    vetoed = {id(f) for f, v in zip(near, found.room_vetoed) if v}
    left = [f for f in fired if not found.model.is_room(f.vector())]
    kept = [f for f in sure if id(f) not in vetoed]
    return left, kept, (f"venue model: {len(near)} room bursts near the threshold told from "
                        f"{len(taught)} taught claps (left out one at a time: {len(vetoed)} vetoed at "
                        f"log-odds >= {VETO:g}, of them {sum(id(f) in vetoed for f in fired)} of the "
                        f"{len(fired)} that fire and {len(sure) - len(kept)} of {len(sure)} sure claps; "
                        f"no taught clap)")
