"""The venue model: the room's own clap-like sounds, learned from a lesson (issue 19).

A lesson (``clap_teach.teach``) hears a few taught claps and the room without claps. The
room's bursts that score over, or near, the threshold are the room's clap-like sounds
(typing, drum hits, footsteps, knocks). ``learn`` fits a small model on the lesson only that
tells them from the taught claps in the burst feature space (``clap_features.FEATURES``):

- **Standardised on the lesson**: each feature minus its mean over the lesson's bursts (claps
  and room), over its standard deviation (1 where it does not vary); a value that is not
  finite counts as the mean.
- **A ridge logistic score** (``RIDGE``, 1.0, on the weights, not the bias; the two classes
  weigh the same however many bursts each has), fitted by Newton's method (``STEPS``, at most
  50, to a step under 1e-9): ``log_odds`` of a burst being the room's.
- **The veto**: a burst the trees pass is the room's when its log-odds are at least ``VETO``
  (3.0: p > 0.95, the same "sure" as ``clap_teach.CONFIDENT``; fixed a priori, not fitted).
- **Enabled from the lesson alone** (``LooResult.enabled``; the rule was declared before any
  run): leave-one-out over the lesson's bursts, each fitted (and standardised) without it.
  Enabled only when no taught clap is vetoed out of its fold and at least one room burst that
  fires is vetoed out of its fold (else it learned nothing).

Stored in the venue profile as ``clap.venue_model``: ``SIZE`` (50) numbers - 16 means, 16
scales, 16 weights, the bias and the veto (``VenueModel.numbers``); empty: no model (the
default, and every profile written before it). Another length is a ``ConfigError`` naming it.

Cost: judging a burst is one dot product of 16 (~2 us); learning fits one model per burst of
the lesson (a 17-by-17 solve a step, ~ms each).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sensekit.audio.clap_features import FEATURES
from sensekit.errors import ConfigError

__all__ = ["RIDGE", "SIZE", "VETO", "LooResult", "VenueModel", "check_venue_model", "fit", "learn"]

N = len(FEATURES)
SIZE = 3 * N + 2          # means, scales, weights, bias, veto
RIDGE = 1.0               # the weights' L2 penalty (standardised features, classes of equal weight)
VETO = 3.0                # room log-odds a passed burst needs to be vetoed (p > 0.95)
STEPS = 50                # Newton steps at most
#: bounds of a stored model's numbers (a damaged or hand-edited profile): ``fit`` keeps a scale under
#: 1e-9 as 1, and standardised weights, feature means and log-odds are far under 1e6; with them
#: ``log_odds`` cannot overflow (1e308 numbers made it NaN or -inf: a model that silently never vetoed)
MAX_ABS = 1e6
MIN_SCALE = 1e-9


@dataclass(frozen=True)
class VenueModel:
    """A fitted venue model (the module docstring says what each part is)."""
    mean: np.ndarray
    scale: np.ndarray
    w: np.ndarray
    b: float
    veto: float = VETO

    def log_odds(self, x: np.ndarray) -> np.ndarray:
        """The room's log-odds of each row of ``x`` (``FEATURES`` values; not finite: the mean)."""
        z = _standard(np.atleast_2d(np.asarray(x, np.float64)), self.mean, self.scale)
        return np.asarray(z @ self.w + self.b)

    def is_room(self, vals: Sequence[float] | np.ndarray) -> bool:
        """Whether the burst with ``FEATURES`` values ``vals`` is the room's (log-odds >= veto)."""
        return bool(self.log_odds(np.asarray(vals, np.float64))[0] >= self.veto)

    def numbers(self) -> tuple[float, ...]:
        """The ``SIZE`` numbers the profile keeps (``clap.venue_model``)."""
        return tuple(round(float(v), 6) for v in (*self.mean, *self.scale, *self.w, self.b, self.veto))

    @classmethod
    def from_numbers(cls, nums: Sequence[float]) -> VenueModel | None:
        """The model of ``clap.venue_model`` (None when empty); ``ConfigError`` when malformed."""
        check_venue_model({"venue_model": nums})
        if not len(nums):
            return None
        v = np.asarray(nums, np.float64)
        return cls(v[:N], v[N:2 * N], v[2 * N:3 * N], float(v[3 * N]), float(v[3 * N + 1]))


def check_venue_model(values: Mapping[str, Any]) -> None:
    """The clap group's rule: ``venue_model`` is empty or ``SIZE`` numbers with positive scales."""
    nums = values.get("venue_model", ())
    if not len(nums):
        return
    if len(nums) != SIZE:
        raise ConfigError(f"`clap.venue_model` must hold {SIZE} numbers (written by `sensekit calibrate "
                          f"--claps`) or none, got {len(nums)}")
    if min(float(v) for v in nums[N:2 * N]) <= 0.0:
        raise ConfigError("`clap.venue_model` is not a venue model (its feature scales must be > 0): "
                          "teach the venue again, or set clap.venue_model=none")
    v = np.asarray(nums, np.float64)
    if not np.all(np.isfinite(v)) or np.abs(v).max() > MAX_ABS or v[N:2 * N].min() < MIN_SCALE:
        raise ConfigError(f"`clap.venue_model` is not a venue model (its numbers must be finite and within "
                          f"+-{MAX_ABS:g}, its feature scales at least {MIN_SCALE:g}: `fit` writes no other): "
                          "teach the venue again, or set clap.venue_model=none")


def _standard(x: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    z = (x - mean) / scale
    return np.where(np.isfinite(z), z, 0.0)


def fit(x: np.ndarray, room: np.ndarray, ridge: float = RIDGE) -> VenueModel:
    """The venue model of bursts ``x`` (rows of ``FEATURES`` values), ``room[i]`` True for the room's."""
    x = np.asarray(x, np.float64)
    y = np.asarray(room, bool).astype(np.float64)
    finite = np.where(np.isfinite(x), x, np.nan)
    with np.errstate(all="ignore"):
        mean = np.nanmean(finite, axis=0) if len(x) else np.zeros(x.shape[1])
        sd = np.nanstd(finite, axis=0) if len(x) else np.ones(x.shape[1])
    mean = np.where(np.isfinite(mean), mean, 0.0)
    scale = np.where(np.isfinite(sd) & (sd > 1e-9), sd, 1.0)
    z = np.hstack([_standard(x, mean, scale), np.ones((len(x), 1))])
    n1, n0 = max(float(y.sum()), 1.0), max(float(len(y) - y.sum()), 1.0)
    weight = np.where(y > 0, 0.5 / n1, 0.5 / n0)
    pen = np.full(z.shape[1], ridge / max(len(y), 1))
    pen[-1] = 0.0
    beta = np.zeros(z.shape[1])
    for _ in range(STEPS):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ beta, -50.0, 50.0)))
        grad = z.T @ (weight * (p - y)) + pen * beta
        hess = (z * (weight * p * (1.0 - p))[:, None]).T @ z + np.diag(pen + 1e-12)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if float(np.max(np.abs(step))) < 1e-9:
            break
    return VenueModel(mean, scale, beta[:-1].copy(), float(beta[-1]))


@dataclass
class LooResult:
    """What ``learn`` found: the model fitted on the whole lesson and the out-of-fold log-odds."""
    model: VenueModel
    clap_log_odds: np.ndarray     # each taught clap's, fitted without it
    room_log_odds: np.ndarray     # each room burst's, fitted without it
    fires: np.ndarray             # which room bursts fire (score >= threshold)

    @property
    def claps_vetoed(self) -> int:
        return int(np.sum(self.clap_log_odds >= VETO))

    @property
    def room_vetoed(self) -> np.ndarray:
        return np.asarray(self.room_log_odds >= VETO)

    @property
    def enabled(self) -> bool:
        """No taught clap vetoed out of its fold, and a firing room burst vetoed out of its fold."""
        return self.claps_vetoed == 0 and bool(np.any(self.room_vetoed & self.fires))


def learn(claps: np.ndarray, room: np.ndarray, fires: np.ndarray, ridge: float = RIDGE) -> LooResult | None:
    """The venue model of taught ``claps`` against ``room`` bursts (rows of ``FEATURES`` values;
    ``fires``: which room bursts fire), with each burst's leave-one-out log-odds; None when
    either side is empty."""
    c, r = np.asarray(claps, np.float64).reshape(-1, N), np.asarray(room, np.float64).reshape(-1, N)
    if not len(c) or not len(r):
        return None
    x = np.vstack([c, r])
    y = np.r_[np.zeros(len(c), bool), np.ones(len(r), bool)]
    keep = np.ones(len(x), bool)
    loo = np.empty(len(x))
    for i in range(len(x)):
        keep[i] = False
        loo[i] = fit(x[keep], y[keep], ridge).log_odds(x[i])[0]
        keep[i] = True
    return LooResult(fit(x, y, ridge), loo[:len(c)], loo[len(c):], np.asarray(fires, bool))
