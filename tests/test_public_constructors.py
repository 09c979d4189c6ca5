"""Every public constructor of the API reference, given a wrong-typed value for each parameter, is one
clear error naming the parameter (``sensekit/arg_types.py``; harden23).

The classes come from the same walk as the API reference (``docs/build_api.py``: every module of the
package, each module's ``__all__`` or its public names), so a class added later is either swept here
or listed in ``NOT_SWEPT`` with the reason: ``test_every_public_class_is_swept_or_says_why`` fails
otherwise. A class that declares settings (``Tunable``) is swept over its settings too:
``ClapDetector(threshold=<wrong>)`` must name ``threshold``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .public_classes import NEEDS, NOT_SWEPT, SWEPT, Wrong, _close, _load, _params, public_classes


def test_every_public_class_is_swept_or_says_why() -> None:
    found = set(public_classes())
    listed = set(SWEPT) | set(NEEDS) | set(NOT_SWEPT)
    assert not found - listed, f"public classes in neither table: {sorted(found - listed)}"
    assert not listed - found, f"listed but not public classes: {sorted(listed - found)}"
    assert not set(SWEPT) & set(NOT_SWEPT)


@pytest.mark.parametrize("qualname", sorted(SWEPT) + sorted(NEEDS))
def test_every_parameter_given_a_wrong_type_is_one_error_naming_it(
        qualname: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if qualname in NEEDS:
        pytest.importorskip(NEEDS[qualname], reason=f"{qualname} needs the optional {NEEDS[qualname]}")
    monkeypatch.chdir(tmp_path)
    cls = _load(qualname)
    base = SWEPT.get(qualname, dict)()
    params = _params(cls)
    assert params, qualname
    _close(cls(**base))                            # the valid call works
    for leftover in tmp_path.iterdir():            # (the Recorder's take)
        shutil.rmtree(leftover)
    bad = []
    for name in params:
        try:
            obj = cls(**{**base, name: Wrong()})
        except (TypeError, ValueError) as exc:
            msg = str(exc)
            if isinstance(exc, AttributeError) or name not in msg or "\n" in msg:
                bad.append((name, type(exc).__name__, msg[:120]))
        except Exception as exc:                   # AttributeError, a device error...: the defect
            bad.append((name, type(exc).__name__, str(exc)[:120]))
        else:
            _close(obj)
            bad.append((name, "accepted", ""))
    assert not bad, bad
    assert not list(tmp_path.iterdir())            # nothing written by a refused call
