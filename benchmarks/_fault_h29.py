"""The fault matrix's rows for harden29: one packet that can stop a show.

A real show (``sensekit events demo --realtime --loop --level --panel 127.0.0.1:P --osc-control
127.0.0.1:Q`` in a fresh process) is sent, one at a time, what no earlier row sends: OSC bundles
nested as deep as a datagram holds, bundle elements and blobs whose size overruns the datagram,
65,000 type tags without their arguments; WebSocket frames on ``/ws/live`` whose length field
says 2^63-1 or 2^63, a message in 2,000 continuation frames, a compressed frame that inflates to
32 MB, 20,000 pings never read back; a panel POST whose ``Content-Length`` says 10^18 and sends
nothing, and a chunked body whose chunk size is 2^80. After each: the process must be alive, a
setting sent by OSC must show in the panel's ``/api/settings`` within 5 s, and its resident memory
must not have grown by more than 64 MB. ``sensekit`` opens no MIDI input (``--midi`` sends): no
SysEx can reach it, said in a row.

``/sensekit/set/blobs/join_px 255``, a valid setting at the top of its range: ``find_blobs``' CPU a
frame at 640x480 must stay within 40x joining off (it was ~220x: 262 ms a frame).

Also ``harden29`` (a refusal and a profile, no server): ``run steer --track-color #ff0000 --set
tracker.method=model`` must quote the colour typed; a ``[pitch]`` added by hand to a saved profile
must be a warning.

Uses the bundled ``recordings/demo.skrec``; no shared data needed. About 60 s.
"""
from __future__ import annotations

import base64
import json
import os
import socket
import struct
import subprocess
import sys
import time
import urllib.request
import zlib
from pathlib import Path
from typing import Callable

from _fault_h20 import _env, _free_port

Row = Callable[[str, str, str, bool], None]
ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "recordings" / "demo.skrec"
GROWTH_MB = 64


def _osc_string(text: str) -> bytes:
    b = text.encode() + b"\x00"
    return b + b"\x00" * (-len(b) % 4)


def _osc_set(value: float) -> bytes:
    return _osc_string("/sensekit/set/audio/gain") + _osc_string(",f") + struct.pack(">f", value)


def _nested_bundle(inner: bytes, limit: int = 65_000) -> tuple[bytes, int]:
    depth, d = 0, inner
    while len(d) + 20 <= limit:
        d = b"#bundle\x00" + b"\x00" * 7 + b"\x01" + struct.pack(">i", len(d)) + d
        depth += 1
    return d, depth


class Show:
    """The show under test: its panel, its OSC door, its memory."""

    def __init__(self, tmp: Path) -> None:
        self.panel, self.osc = _free_port(), _free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sensekit", "events", str(DEMO), "--realtime", "--loop", "--level",
             "--panel", f"127.0.0.1:{self.panel}", "--osc-control", f"127.0.0.1:{self.osc}"],
            cwd=tmp, env=_env(), text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.value = 50.0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                self.settings()
                break
            except OSError:
                time.sleep(0.3)

    def settings(self) -> dict[str, object]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.panel}/api/settings", timeout=5) as r:
            data = json.loads(r.read())
        values = data.get("values", data)
        return values if isinstance(values, dict) else {}

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def send_osc(self, data: bytes) -> None:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(data, ("127.0.0.1", self.osc))

    def answers(self) -> str | None:
        """None if the show is alive and takes a new setting by OSC within 5 s, else what is wrong."""
        if self.proc.poll() is not None:
            return f"the show ended, exit {self.proc.returncode}"
        self.value = 51.0 if self.value != 51.0 else 52.0
        self.send_osc(_osc_set(self.value))
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                got = self.settings().get("audio.gain")
            except OSError as exc:
                return f"the panel did not answer: {exc}"
            if got == self.value:
                return None
            time.sleep(0.1)
        return f"the OSC setting {self.value} not applied in 5 s (the panel says {got})"

    def stop(self) -> str:
        self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err


def _ws(port: int, *, deflate: bool = False) -> socket.socket:
    """A WebSocket on the show's ``/ws/live``, handshake done (the reply's headers read)."""
    c = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    ext = "Sec-WebSocket-Extensions: permessage-deflate\r\n" if deflate else ""
    c.sendall(f"GET /ws/live HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{ext}\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = c.recv(4096)
        if not chunk:
            break
        head += chunk
    return c


def _frame(opcode: int, payload: bytes, *, fin: bool = True, rsv1: bool = False,
           length: int | None = None) -> bytes:
    """A masked client frame; ``length`` overrides the length field (64-bit form)."""
    first = (0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode
    mask = b"\x01\x02\x03\x04"
    n = len(payload) if length is None else length
    if length is not None:
        head = bytes([first, 0x80 | 127]) + struct.pack(">Q", n)
    elif n < 126:
        head = bytes([first, 0x80 | n])
    elif n < 65536:
        head = bytes([first, 0x80 | 126]) + struct.pack(">H", n)
    else:
        head = bytes([first, 0x80 | 127]) + struct.pack(">Q", n)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if len(payload) < 200_000 else \
        (int.from_bytes(payload, "big") ^ int.from_bytes((mask * (len(payload) // 4 + 1))[:len(payload)],
                                                         "big")).to_bytes(len(payload), "big")
    return head + mask + masked


def _closed_within(c: socket.socket, seconds: float) -> tuple[bool, float, int | None]:
    """Whether the server closed ``c`` within ``seconds`` (reading what it sends), when, and the
    close code of a close frame it sent, if any."""
    t0, code, buf = time.monotonic(), None, b""
    c.settimeout(0.5)
    while time.monotonic() - t0 < seconds:
        try:
            chunk = c.recv(65536)
        except TimeoutError:
            continue
        except OSError:
            return True, time.monotonic() - t0, code
        if not chunk:
            return True, time.monotonic() - t0, code
        buf = (buf + chunk)[-4096:]
        at = buf.find(b"\x88")
        if at >= 0 and len(buf) >= at + 4:
            said = struct.unpack(">H", buf[at + 2:at + 4])[0]
            code = said if 1000 <= said < 5000 and 2 <= buf[at + 1] <= 125 else code
    return False, seconds, code


def _send(c: socket.socket, data: bytes) -> str:
    try:
        c.sendall(data)
        return ""
    except OSError as exc:
        return f" (send: {exc.strerror or exc})"


def _check(show: Show, row: Row, area: str, case: str, said: str, before: float, ok: bool = True) -> None:
    wrong = show.answers()
    grew = show.rss_mb() - before
    row(area, case, f"{said}; the show {'answers' if wrong is None else wrong}, RSS {grew:+.0f} MB",
        ok and wrong is None and grew < GROWTH_MB)


def _osc_rows(show: Show, row: Row) -> None:
    deep, depth = _nested_bundle(_osc_set(30.0))
    small, small_depth = _nested_bundle(_osc_set(30.0), 4000)      # within the 4,096 bytes read
    overrun = b"#bundle\x00" + b"\x00" * 8 + struct.pack(">i", 0x7FFFFFF0) + _osc_set(30.0)
    blob = _osc_string("/sensekit/set/audio/gain") + _osc_string(",b") + struct.pack(">i", 0x7FFFFFF0)
    tags = _osc_string("/sensekit/set/audio/gain") + _osc_string("," + "i" * 65_000)[:65_400]
    unended = b"/sensekit/set/audio/gain" * 1800
    for case, data in ((f"a bundle nested {small_depth} deep ({len(small):,} bytes, a setting at the bottom)", small),
                       (f"a bundle nested {depth} deep ({len(deep):,} bytes, a setting at the bottom)", deep),
                       ("a bundle element whose size says 2^31-16 (the datagram: 64 bytes)", overrun),
                       ("a blob argument whose size says 2^31-16", blob),
                       ("65,000 type tags (',iii...') and no argument", tags),
                       (f"an address of {len(unended):,} bytes that never ends (no NUL)", unended)):
        before = show.rss_mb()
        for _ in range(200):
            show.send_osc(data)
        _check(show, row, "OSC (harden29)", f"200 x {case}", "sent", before)


def _ws_rows(show: Show, row: Row) -> None:
    for case, length in (("2^63-1", 2**63 - 1), ("2^63 (the top bit, which RFC 6455 forbids)", 2**63)):
        before = show.rss_mb()
        c = _ws(show.panel)
        sent = _send(c, _frame(0x1, b"x" * 1024, length=length))
        closed, after, code = _closed_within(c, 10)
        c.close()
        _check(show, row, "panel (harden29)", f"a /ws/live frame whose length says {case}, 1 kB sent",
               f"closed {closed} in {after:.1f} s, code {code}{sent}", before, closed)
    before = show.rss_mb()
    c = _ws(show.panel)
    sent = _send(c, _frame(0x1, b"{" * 1024, fin=False)
                 + b"".join(_frame(0x0, b"[" * 1024, fin=False) for _ in range(2000)))
    closed, after, code = _closed_within(c, 10)
    c.close()
    _check(show, row, "panel (harden29)", "a /ws/live text message in 2,000 continuation frames of 1 kB, never ended",
           f"closed {closed} in {after:.1f} s, code {code}{sent}", before, closed)
    before = show.rss_mb()
    c = _ws(show.panel, deflate=True)
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    bomb = z.compress(b"\x00" * (32 << 20)) + z.flush(zlib.Z_SYNC_FLUSH)
    sent = _send(c, _frame(0x1, bomb[:-4], rsv1=True))
    closed, after, code = _closed_within(c, 10)
    c.close()
    _check(show, row, "panel (harden29)",
           f"a compressed /ws/live frame ({len(bomb) // 1024} kB) that inflates to 32 MB",
           f"closed {closed} in {after:.1f} s, code {code}{sent}", before, closed)
    before = show.rss_mb()
    c = _ws(show.panel)
    c.settimeout(5)
    ping = _frame(0x9, b"p" * 125)
    sent = _send(c, ping * 20_000)
    peak = show.rss_mb() - before
    c.close()
    _check(show, row, "panel (harden29)", "20,000 /ws/live pings of 125 bytes, the pongs never read",
           f"{'sent' if not sent else sent.strip(' ()')}, RSS at the peak {peak:+.0f} MB", before)


def _http_rows(show: Show, row: Row) -> None:
    for case, request in (
            ("POST /api/set with Content-Length 10^18 and no body",
             b"POST /api/set HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             b"Content-Length: 1000000000000000000\r\n\r\n"),
            ("POST /api/set chunked, a chunk size of 2^80 and nothing after it",
             b"POST /api/set HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             b"Transfer-Encoding: chunked\r\n\r\n100000000000000000000\r\n")):
        before = show.rss_mb()
        c = socket.create_connection(("127.0.0.1", show.panel), timeout=10)
        c.sendall(request)
        t0, reply = time.monotonic(), b""
        c.settimeout(15)
        try:
            while chunk := c.recv(4096):
                reply += chunk
        except OSError:
            pass
        took = time.monotonic() - t0
        c.close()
        status = reply.split(b"\r\n", 1)[0].decode(errors="replace") or "no answer"
        _check(show, row, "panel (harden29)", case, f"{status} in {took:.1f} s, closed", before,
               took < 12 and status.split(" ")[1:2] in (["400"], ["413"]))


def _midi_row(row: Row) -> None:
    found = [p.name for p in (ROOT / "sensekit").rglob("*.py")
             if any(w in p.read_text() for w in ("open_input", "MidiIn", "callback="))
             and "midi" in p.read_text().lower()]
    row("MIDI (harden29)", "a SysEx that never ends (F0 and no F7)",
        "no MIDI input is opened (--midi only sends): nothing reads it" if not found
        else f"a MIDI input in {found}: not tried", not found)


def _show_rows(tmp: Path, row: Row) -> None:
    show = Show(tmp)
    try:
        wrong = show.answers()
        if wrong is not None:
            row("OSC (harden29)", "the show under test", wrong, False)
            return
        _osc_rows(show, row)
        _ws_rows(show, row)
        _http_rows(show, row)
    finally:
        err = show.stop()
    tracebacks = err.count("Traceback")
    row("panel, OSC (harden29)", "all the above, then the show stopped",
        f"{tracebacks} traceback(s) on stderr; last line: {err.strip().splitlines()[-1][:90] if err.strip() else ''}",
        tracebacks == 0)


def _run_colour_row(tmp: Path, row: Row) -> None:
    p = subprocess.run([sys.executable, "-m", "sensekit", "run", "steer", "--source", str(DEMO), "--headless",
                        "--frames", "2", "--track-color", "#ff0000", "--set", "tracker.method=model"],
                       capture_output=True, text=True, timeout=120, cwd=tmp, env=_env())
    line = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "(nothing on stderr)"
    row("profile (harden29)", "run steer --track-color #ff0000 --set tracker.method=model",
        f"exit {p.returncode}: ...{line[-95:]}",
        p.returncode == 2 and "(#ff0000)" in line and line.endswith("[`tracker.color`: --track-color #ff0000]"))


def _hand_table_row(tmp: Path, row: Row) -> None:
    sys.path.insert(0, str(ROOT))
    from sensekit.profile import save_profile
    from sensekit.profile.seal import END

    profile = tmp / "h29-venue.toml"
    profile.unlink(missing_ok=True)
    save_profile({"audio.gain": 50.0, "motion.noise_sigma": 0.28, "tracker.color": "#808c96"}, profile)
    profile.write_text(profile.read_text().replace(END, "[pitch]\nfmin = 80.0\n" + END))
    p = subprocess.run([sys.executable, "-m", "sensekit", "run", "sound_flier", "--source", str(DEMO), "--headless",
                        "--frames", "2", "--profile", str(profile)], capture_output=True, text=True, timeout=120,
                       cwd=tmp, env=_env())
    said = [ln for ln in p.stderr.splitlines() if "does not use" in ln]
    row("profile (harden29)", "run sound_flier, a [pitch] added by hand to a profile calibrate saved",
        f"exit {p.returncode}; {said[0][:100] if said else 'nothing said'}",
        p.returncode == 0 and len(said) == 1 and "[pitch]" in said[0] and "[motion]" not in said[0])


def _join_row(row: Row) -> None:
    """``/sensekit/set/blobs/join_px 255`` (the top of its range): ``find_blobs``' CPU a frame at
    640x480 against joining off, in this process (a ratio, as the benchmarks give speed)."""
    import numpy as np

    from sensekit.vision.blobs import find_blobs

    rng = np.random.default_rng(0)
    mask = (rng.random((480, 640)) > 0.97).astype(np.uint8) * 255
    cost: dict[int, float] = {}
    for join in (0, 255, 0, 255):
        t = time.process_time()
        for _ in range(5):
            find_blobs(mask, join_px=join)
        cost[join] = min(cost.get(join, 1e9), (time.process_time() - t) / 5 * 1000)
    ratio = cost[255] / max(cost[0], 1e-6)
    row("OSC, panel (harden29)", "/sensekit/set/blobs/join_px 255 (the top of its range), find_blobs at 640x480",
        f"{cost[255]:.1f} ms a frame, {ratio:.0f}x joining off ({cost[0]:.1f} ms)", cost[255] < 40 and ratio < 40)


def harden29_rows(tmp: Path, row: Row) -> None:
    _join_row(row)
    _run_colour_row(tmp, row)
    _hand_table_row(tmp, row)
    _show_rows(tmp, row)
    _midi_row(row)
