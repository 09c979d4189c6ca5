"""A running show with OSC control, for the tests and benchmarks that send it datagrams
(``tests/test_osc_hostile.py``, ``tests/test_settings_budget.py``, ``benchmarks/osc_rebuild_flood.py``):
``Show`` (a run of ``sensekit events`` on a recording, looped, driven item by item in the caller's
thread, with a real ``OscControl`` on a free UDP port of 127.0.0.1 and a plain socket sending to
it), ``osc_message`` (one OSC message as bytes) and ``wait_until`` (a bounded wait: ``WAIT_S``).
"""
from __future__ import annotations

import argparse
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pythonosc.osc_message_builder import OscMessageBuilder

from sensekit.osc import OscControl

WAIT_S = 5.0


def wait_until(predicate: Callable[[], bool], what: str) -> None:
    """Until ``predicate()``; an ``AssertionError`` naming ``what`` after ``WAIT_S`` seconds."""
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"the OSC server did not answer within {WAIT_S} s: {what}")
        time.sleep(0.002)


def osc_message(address: str, *args: Any) -> bytes:
    """One OSC message to ``address`` with ``args`` (python-osc picks the type tags)."""
    b = OscMessageBuilder(address)
    for a in args:
        b.add_arg(a)
    return bytes(b.build().dgram)


class Show:
    """A run of ``sensekit events`` on the demo recording (looped) with OSC control."""

    def __init__(self, demo: Path, argv: list[str]) -> None:
        from sensekit.capture.spec import open_source
        from sensekit.cli import events
        from sensekit.runner import Runner

        parser = argparse.ArgumentParser()
        providers = events._providers()
        for provider in providers:
            provider.add_arguments(parser)
        args = parser.parse_args(argv)
        self.source = open_source(f"replay:{demo}", loop=True)
        self.source.__enter__()
        self.stages, self.tuning = events.build(args, self.source, providers=providers)
        self.runner = Runner(self.source, self.stages)
        self.runner.dispatcher.on("*", lambda e: None)           # someone listens: stages run
        self.control = OscControl("127.0.0.1", 0, tuning=self.tuning).start()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.runner.run(max_items=10)

    def counted(self) -> int:
        c = self.control
        return c.accepted + c.rejected + c.unused + c.malformed + c.oversized

    def send(self, dgram: bytes) -> None:
        self.sock.sendto(dgram, ("127.0.0.1", self.control.port))

    def send_and_wait(self, dgram: bytes, what: str) -> None:
        before = self.counted()
        self.send(dgram)
        wait_until(lambda: self.counted() > before, what)

    def close(self) -> None:
        self.sock.close()
        self.control.close()
        self.source.__exit__(None, None, None)
