"""A burst at the OSC control port (``sensekit.osc.control``, ``sensekit.osc.pace``): the last
setting of a burst of 4,000 is the one that sticks, and what the kernel drops of a burst's tail is
counted. Exact: the test waits until the kernel's buffer is empty and every datagram read has
been handled (a hang guard, not a time bound), then checks values and counts."""
from __future__ import annotations

import socket
import time

import pytest
from pythonosc.osc_message_builder import OscMessageBuilder

from sensekit.audio.activity import ActivityDetector
from sensekit.osc import OscControl
from sensekit.osc.pace import socket_drops
from sensekit.settings import Tuning
from tests.hang_guard import HANG_S, returns

BURST = 4000
LAST = 95.0


def _setting(value: float) -> bytes:
    b = OscMessageBuilder("/sensekit/set/activity/silence_level")
    b.add_arg(value)
    return b.build().dgram


def _burst(port: int, tail: tuple[float, ...] = (LAST,)) -> None:
    """4,000 settings as fast as a socket sends them, ending on ``tail``: a fader's burst."""
    grams = [_setting(float(i % 90) + 0.5) for i in range(BURST - len(tail))] + [_setting(v) for v in tail]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for g in grams:
            s.sendto(g, ("127.0.0.1", port))


def _wait_until_read(control: OscControl) -> None:
    """Until the socket's buffer is empty and every datagram read has been handled (a backlog is
    read in batches, a setting superseded in its batch not applied: ~1 s for 4,000 here, 9-20 s
    one by one); a hang fails after ``4 * HANG_S``."""
    server = control._server
    deadline = time.monotonic() + 4 * HANG_S
    while time.monotonic() < deadline:
        queued = socket_drops(server.socket)
        assert queued is not None, "the socket is not in /proc/net/udp"
        if queued[1] == 0 and server.read == server.handled:
            return
        time.sleep(0.05)
    pytest.fail(f"the control port did not read its buffer within {4 * HANG_S:g} s: it hangs")


def _control() -> OscControl:
    return OscControl("127.0.0.1", 0, tuning=Tuning(lambda: [ActivityDetector()]))


@pytest.mark.parametrize("tail, sticks, refused", [((LAST,), LAST, 0), ((77.0, 300.0), 77.0, 1)],
                         ids=["ends-on-95", "ends-on-77-then-out-of-range"])
def test_the_last_setting_of_a_burst_of_4000_is_the_one_that_sticks(tail, sticks, refused):
    """A fader's burst of 4,000 settings, the last 95: 95 sticks, nothing dropped. A last value
    out of range (300) is refused as it always was, and the good one before it (77) sticks."""
    control = _control()
    # the kernel's default buffer (~208 kB, ~250 datagrams) kept the burst's oldest and dropped
    # its newest: the value that stuck was one from early in the burst (35.5, not 95)
    if control._server.buffer_bytes < 4 * 1024 * 1024:
        control.close()
        pytest.skip(f"the kernel grants a receive buffer of {control._server.buffer_bytes} bytes "
                    "(net.core.rmem_max, not root): too small to hold a burst of 4,000")
    control.start()
    try:
        _burst(control.port, tail)
        _wait_until_read(control)
        stats = control.stats()
        assert control.last["activity.silence_level"] == sticks
        assert stats["osc_dropped"] == 0
        # every datagram read, once: applied, refused, or superseded by a later one in its batch
        assert stats["osc_accepted"] + stats["osc_rejected"] + stats["osc_superseded"] == BURST, stats
        assert stats["osc_rejected"] == refused and stats["osc_malformed"] == 0, stats
    finally:
        returns(control.close, what="OscControl.close() after a burst")


def test_the_dropped_tail_of_a_burst_is_counted():
    control = _control()
    # a small buffer, as a kernel that grants no more gives: the burst's tail is dropped with no
    # datagram after it to bring the count (SO_RXQ_OVFL): before, 586 accepted and 2,600
    # counted dropped of 4,000
    control._server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
    control.start()
    try:
        _burst(control.port)
        _wait_until_read(control)
        stats = control.stats()
        assert stats["osc_dropped"] > 0
        assert stats["osc_accepted"] + stats["osc_superseded"] + stats["osc_dropped"] == BURST, stats
    finally:
        returns(control.close, what="OscControl.close() after a burst")


def _batch(grams: list[bytes]) -> list[tuple[bytes, tuple[str, int]]]:
    return [(g, ("127.0.0.1", 9)) for g in grams]


def test_in_a_backlog_only_the_last_taken_value_of_each_address_is_applied():
    """``receive_batch`` on a batch read at once, exactly: the last value of each address that the
    table takes is applied; values after it that the table refuses are refused as ever; earlier
    ones are superseded; a batch shorter than ``COALESCE_FROM`` applies every message."""
    from sensekit.osc.control import COALESCE_FROM

    failures: list[BaseException] = []
    with OscControl("127.0.0.1", 0, tuning=Tuning(lambda: [ActivityDetector()])) as control:
        grams = [_setting(float(i)) for i in range(COALESCE_FROM)] + [_setting(77.0), _setting(300.0)]
        control.receive_batch(_batch(grams), lambda exc, sender: failures.append(exc))
        assert control.last["activity.silence_level"] == 77.0
        assert (control.accepted, control.rejected, control.superseded) == (1, 1, COALESCE_FROM)
        short = [_setting(1.0), _setting(300.0), _setting(2.0)]
        control.receive_batch(_batch(short), lambda exc, sender: failures.append(exc))
        assert control.last["activity.silence_level"] == 2.0
        assert (control.accepted, control.rejected, control.superseded) == (3, 2, COALESCE_FROM)
    assert failures == []


def test_osc_listen_counts_the_dropped_tail_of_a_burst(capsys):
    """``sensekit osc-listen`` under a burst of 4,000 (the kernel's default buffer): every
    datagram is printed or counted as dropped by the kernel at the end, exactly; the count that
    came with each datagram missed the tail (nothing came after it to bring it)."""
    import io
    import re
    import threading

    from sensekit.cli.osc_listen import listen

    out = io.StringIO()
    ports: list[int] = []
    ready = threading.Event()
    # the listener ends 8 s after it starts; it reads what the kernel kept in well under 1 s
    listener = threading.Thread(target=lambda: listen(
        0, seconds=8.0, out=out, ready=lambda p: (ports.append(p), ready.set())))
    listener.start()
    assert ready.wait(HANG_S)
    _burst(ports[0])
    listener.join(HANG_S)
    assert not listener.is_alive(), "listen(seconds=8) did not return"
    printed = len(out.getvalue().splitlines())
    err = capsys.readouterr().err
    m = re.search(r"(\d+) datagram\(s\) dropped by the kernel", err)
    dropped = int(m.group(1)) if m else 0
    assert printed + dropped == BURST, (printed, dropped, err[-500:])
