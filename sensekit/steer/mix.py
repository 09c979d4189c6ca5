"""Mix behaviours with named weights: ``Mix(seek=1.0, avoid=3.0)(seek=f1, avoid=f2)``.

A ``Mix`` holds a weight per behaviour name; calling it with forces by name returns
``sum(weight[name] * force)``. A force whose name has no weight is rejected when the mix
is called (a misspelled behaviour fails loudly instead of silently weighing 0); names with
a weight but no force contribute nothing, so one mix can serve several modes. Weights can
be read and changed like a dict (``m["avoid"] = 5``) -- the demo apps bind keys to them.

Cost: a Python loop over the named forces (a few microseconds).
Failure modes: ``ConfigError`` naming the value for a non-finite weight, an unknown
force name, a force that is not a finite (x, y) pair.
"""
from __future__ import annotations

import math
from typing import Any, Iterator, Mapping

import numpy as np

from sensekit.arg_types import checked
from sensekit.validate import as_vec
from sensekit.errors import ConfigError


def _check_weight(name: str, value: Any) -> float:
    try:
        w = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"weight `{name}` must be a number, got {value!r}") from None
    if not math.isfinite(w):
        raise ConfigError(f"weight `{name}` must be finite, got {value!r}")
    return w


class Mix(Mapping[str, float]):
    """Named weights; call with named forces to get their weighted sum."""

    @checked
    def __init__(self, weights: Mapping[str, float] | None = None, **kw: float) -> None:
        self._w: dict[str, float] = {}
        for name, value in {**(weights or {}), **kw}.items():
            self._w[name] = _check_weight(name, value)

    def __getitem__(self, name: str) -> float:
        return self._w[name]

    def __setitem__(self, name: str, value: float) -> None:
        self._w[name] = _check_weight(name, value)

    def __iter__(self) -> Iterator[str]:
        return iter(self._w)

    def __len__(self) -> int:
        return len(self._w)

    def __call__(self, forces: Mapping[str, Any] | None = None, **kw: Any) -> np.ndarray:
        total = np.zeros(2)
        for name, force in {**(forces or {}), **kw}.items():
            if name not in self._w:
                raise ConfigError(f"no weight for behaviour {name!r}; weights are "
                                  f"{sorted(self._w)}")
            w = self._w[name]
            if w:
                total += w * as_vec(f"force {name!r}", force)
        return total

    def __repr__(self) -> str:
        return "Mix(" + ", ".join(f"{k}={v:g}" for k, v in self._w.items()) + ")"


def mix(forces: Mapping[str, Any], weights: Mapping[str, float]) -> np.ndarray:
    """One-off weighted sum of named forces (see ``Mix``)."""
    return Mix(weights)(forces)
