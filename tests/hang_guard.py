"""Hang guards for tests: a call that must return, joined with a generous timeout that fails
with a message naming what hung, instead of a wall-clock upper bound (``assert elapsed < X``)
that a loaded machine breaks. What the call must do is asserted exactly beside it: a count, a
thread that is not alive, an error raised."""
from __future__ import annotations

import threading
from typing import Any, Callable, TypeVar

import pytest

T = TypeVar("T")

#: how long a call that should return at once may take before it counts as hung: far above
#: anything a loaded machine adds, so only a hang fails
HANG_S = 30.0


def returns(fn: Callable[..., T], *args: Any, what: str, timeout_s: float = HANG_S, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` run on a thread and joined for ``timeout_s``: its result, or its
    exception re-raised here; a call still running then fails the test naming ``what``."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - re-raised on the test's thread
            out["error"] = exc

    thread = threading.Thread(target=run, name=f"hang-guard: {what}", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        pytest.fail(f"{what} did not return within {timeout_s:g} s: it hangs")
    if "error" in out:
        raise out["error"]
    return out["value"]  # type: ignore[no-any-return]


def joined(thread: threading.Thread, *, what: str, timeout_s: float = HANG_S) -> None:
    """Join ``thread`` for ``timeout_s``; still alive then fails the test naming ``what``."""
    thread.join(timeout_s)
    if thread.is_alive():
        pytest.fail(f"{what} did not end within {timeout_s:g} s: it hangs")
