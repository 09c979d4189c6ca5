"""The fault matrix's rows for harden18: a burst at the OSC control port (its last setting must
stick, its dropped tail must be counted) and a live camera that comes and goes (no descriptor
or thread may be left behind per reconnect). ``burst_rows`` adds them through the matrix's
``row``. Each burst is 4,000 settings sent as fast as a socket sends them; the port is read
until the kernel's buffer is empty and every datagram read is handled.
"""
from __future__ import annotations

import os
import socket
import time
from typing import Callable

Row = Callable[[str, str, str, bool], None]
BURST = 4000


def _setting(value: float) -> bytes:
    from pythonosc.osc_message_builder import OscMessageBuilder

    b = OscMessageBuilder("/sensekit/set/activity/silence_level")
    b.add_arg(value)
    return bytes(b.build().dgram)


def _burst_row(row: Row, case: str, tail: tuple[float, ...], sticks: float, *,
               buffer_bytes: int | None = None) -> None:
    from sensekit.audio.activity import ActivityDetector
    from sensekit.osc import OscControl
    from sensekit.osc.pace import socket_drops
    from sensekit.settings import Tuning

    control = OscControl("127.0.0.1", 0, tuning=Tuning(lambda: [ActivityDetector()]))
    server = control._server
    if buffer_bytes is not None:
        server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, buffer_bytes)
    granted = server.socket.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    control.start()
    grams = [_setting(float(i % 90) + 0.5) for i in range(BURST - len(tail))] + [_setting(v) for v in tail]
    t0 = time.monotonic()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for g in grams:
            s.sendto(g, ("127.0.0.1", control.port))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        queued = socket_drops(server.socket)
        if queued is not None and queued[1] == 0 and server.read == server.handled:
            break
        time.sleep(0.05)
    took = time.monotonic() - t0
    st = control.stats()
    value = control.last.get("activity.silence_level")
    control.close()
    counted = st["osc_accepted"] + st["osc_rejected"] + st["osc_superseded"] + st["osc_dropped"]
    outcome = (f"value {value} (buffer {granted // 1024} kB): accepted {st['osc_accepted']}, "
               f"superseded {st['osc_superseded']}, refused {st['osc_rejected']}, dropped {st['osc_dropped']}; "
               f"read in {took:.1f} s")
    ok = counted == BURST and (value == sticks if buffer_bytes is None else True)
    row("OSC", case, outcome, ok)


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _threads() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))


def _stream_restarts_row(row: Row, restarts: int = 200) -> None:
    from sensekit.capture.camera import CameraSource
    from tests.capture.mjpeg_server import MjpegServer

    server = MjpegServer(size=(64, 48), fps=60).start()
    cam = CameraSource(server.url, backoff_initial_s=0.02, backoff_max_s=0.05)
    cam.open()
    cam.read(5)
    losses = restored = 0
    fds0 = threads0 = 0
    for i in range(restarts):
        server.restart_under(cam)
        for e in cam.poll_status():
            losses += e.name == "source_lost"
            restored += e.name == "source_restored"
        if i == 0:
            fds0, threads0 = _fds(), _threads()
    fds1, threads1 = _fds(), _threads()
    cam.close()
    server.stop()
    row("camera", f"an MJPEG stream whose server restarts {restarts} times",
        f"{losses} lost / {restored} restored; descriptors {fds0} -> {fds1}, threads {threads0} -> {threads1}",
        losses == restored == restarts and fds1 <= fds0 and threads1 <= threads0)


def _missing_index_row(row: Row, tries: int = 1000) -> None:
    from sensekit.capture.camera import CameraSource

    cam = CameraSource(7)
    cam._new_capture()
    fds0, threads0 = _fds(), _threads()
    opened = sum(cam._new_capture() is not None for _ in range(tries))
    fds1, threads1 = _fds(), _threads()
    row("camera", f"a camera index that fails to open, tried {tries} times (the reconnect's open)",
        f"{opened} opened; descriptors {fds0} -> {fds1}, threads {threads0} -> {threads1}",
        opened == 0 and fds1 <= fds0 and threads1 <= threads0)


def burst_rows(row: Row) -> None:
    import logging

    logging.getLogger("sensekit.capture.camera").setLevel(logging.ERROR)   # 200 "lost" lines
    _burst_row(row, "a burst of 4,000 settings ending on 95 (OscControl)", (95.0,), 95.0)
    _burst_row(row, "a burst of 4,000 ending on 77 then 300 (out of range)", (77.0, 300.0), 77.0)
    _burst_row(row, "a burst of 4,000 into a 64 kB receive buffer (every datagram counted once)",
               (95.0,), 95.0, buffer_bytes=64 * 1024)
    _stream_restarts_row(row)
    _missing_index_row(row)
