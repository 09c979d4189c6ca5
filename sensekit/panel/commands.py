"""``CommandQueue``: run a panel request on the run's own thread, between two items.

A pick or a save touches the stages and the app, which only the run's loop may do. The web
server ``submit``s a function and awaits the returned ``concurrent.futures.Future``; the loop
calls ``run_pending()`` once per item (the panel's tap stage) and once per app step, so a
request waits at most one frame or block (or one app step while paused). The queue is bounded
(``max_pending``): a flood of requests is refused, not stored.

Failure modes: a full queue raises ``ConfigError`` in ``submit``; an exception in a command is
set on its future (the server reports its text), never raised in the loop.
"""
from __future__ import annotations

import queue
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from sensekit.errors import ConfigError

__all__ = ["CommandQueue"]


class CommandQueue:
    def __init__(self, *, max_pending: int = 32) -> None:
        self._queue: queue.Queue[tuple[Callable[[], Any], Future[Any]]] = queue.Queue(max_pending)

    def submit(self, fn: Callable[[], Any]) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            self._queue.put_nowait((fn, future))
        except queue.Full:
            raise ConfigError("the piece has too many panel requests waiting; try again") from None
        return future

    def run_pending(self) -> int:
        """Run every waiting command (on the caller's thread); returns how many ran."""
        n = 0
        while True:
            try:
                fn, future = self._queue.get_nowait()
            except queue.Empty:
                return n
            n += 1
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn())
            except Exception as exc:  # noqa: BLE001 - reported to the client, the piece goes on
                future.set_exception(exc)
