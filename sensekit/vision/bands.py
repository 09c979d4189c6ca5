"""Work on a frame in bands of rows, on the caller's thread and one worker thread.

``bands(0, h, split=True)`` cuts rows into two halves; ``in_bands(work, rows)`` runs
``work(band)`` for each, the first on a worker thread shared by every caller, and returns when
both are done (exceptions come through). OpenCV releases the GIL inside its calls, so a stage
made of OpenCV calls on its own rows uses both cores, as OpenCV's parallel functions (MOG2)
do. Each band must touch only its own rows (or read what no band writes), so the result is
the same as one pass over the frame, whichever thread does which band. Cost: one hand-over to
the worker, tens of microseconds on an idle machine; on a loaded one the caller takes back a
band the worker has not started, so it never waits longer than doing it alone.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, wait
from typing import Callable, Sequence

__all__ = ["bands", "in_bands"]

_POOL: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    """One worker thread shared by every caller (the caller's thread does the other half)."""
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sensekit-bands")
    return _POOL


def bands(start: int, stop: int, *, split: bool) -> tuple[slice, ...]:
    """Rows ``start:stop`` as two halves (``split``) or one band."""
    if split and stop - start >= 2:
        mid = (start + stop) // 2
        return (slice(start, mid), slice(mid, stop))
    return (slice(start, stop),)


def in_bands(work: Callable[[slice], None], rows: Sequence[slice]) -> None:
    """``work(band)`` for every band of ``rows``: the first on the worker thread, unless the
    worker has not started it by the time the caller is done with the others (a loaded
    machine), in which case the caller does it too rather than wait for the worker."""
    if len(rows) == 1:
        work(rows[0])
        return
    done = _pool().submit(work, rows[0])
    try:
        for band in rows[1:]:
            work(band)
    except BaseException:
        if not done.cancel():
            wait([done])                  # the worker's band still writes into the caller's arrays
        raise
    if done.cancel():
        work(rows[0])
    else:
        done.result()
