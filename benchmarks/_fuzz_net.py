"""The fuzz sweep's network and live-source boundaries (``benchmarks/fuzz_inputs.py`` runs
them): the panel's HTTP and WebSocket frames on a real socket, an MJPEG stream that
misbehaves, truncated video files and WAV files with odd headers.
"""
from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import os
import shutil
import struct
import sys
import tempfile
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np

from _fuzz_cases import Sweep
from _replay_panel import start_replay_panel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.fuzz_mutate import mutate_bytes, mutate_text


# --- the panel ------------------------------------------------------------------------------

class _Errors(logging.Handler):
    """aiohttp's, asyncio's and sensekit's WARNING and ERROR records: one at ERROR, with a
    traceback or over several lines is a failure (marked ``!``), the rest are noted."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        bad = record.levelno >= logging.ERROR or exc is not None or "\n" in record.getMessage()
        self.seen.append(("!" if bad else "") + f"{record.name}: {record.levelname} {record.msg}"
                         + (f" ({type(exc).__name__}: {str(exc).splitlines()[0][:80]})" if exc else ""))


def http_corpus(port: int) -> list[bytes]:
    host = f"Host: 127.0.0.1:{port}\r\n"

    def post(route: str, body: str) -> bytes:
        raw = body.encode()
        return (f"POST {route} HTTP/1.1\r\n{host}Content-Type: application/json\r\n"
                f"Content-Length: {len(raw)}\r\n\r\n").encode() + raw

    return [f"GET / HTTP/1.1\r\n{host}\r\n".encode(), f"GET /api/info HTTP/1.1\r\n{host}\r\n".encode(),
            f"GET /api/settings HTTP/1.1\r\n{host}Connection: close\r\n\r\n".encode(),
            f"GET /static/panel.js HTTP/1.1\r\n{host}\r\n".encode(),
            post("/api/set", '{"values": {"motion.threshold": 30, "activity.silence_level": 25.5}}'),
            post("/api/set", '{"texts": {"motion.zones": "door=0,0,0.5,1"}}'),
            post("/api/pick", '{"x": 10, "y": 20.5}'), post("/api/track-box", '{"box": [10, 20, 30, 40]}'),
            post("/api/zone", '{"name": "door", "box": [0, 0, 100, 200]}'),
            post("/api/resize", '{"width": 320, "height": 240}'),
            post("/api/teach", '{"action": "status", "name": "wave"}'),
            post("/api/teach-sound", '{"action": "status", "name": "knock"}'),
            (f"POST /api/set HTTP/1.1\r\n{host}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
             "1a\r\n{\"values\": {\"motion.thres\r\n10\r\nhold\": 31}}      \r\n0\r\n\r\n").encode(),
            f"GET /ws/live HTTP/1.1\r\n{host}Upgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()]


ODD_HEADERS = [b"Content-Length: -1", b"Content-Length: 99999999999999999999999", b"Content-Length: 0x10",
               b"Content-Length: 5\r\nContent-Length: 7", b"Transfer-Encoding: chunked", b"Transfer-Encoding: gzip",
               b"Content-Encoding: gzip", b"Content-Type: application/json; charset=latin-1",
               b"X-" + b"a" * 9000 + b": 1", b"Host: \xff\xfe", b"Expect: 100-continue",
               b"Upgrade: h2c", b"Connection: keep-alive, Upgrade", b"Origin: http://evil.example",
               b"Content-Length: 65537", b": empty name", b"Cookie: " + b"c=1; " * 2000]


def http_case(corpus: list[bytes], rng: np.random.Generator) -> bytes:
    base = corpus[int(rng.integers(len(corpus)))]
    kind = int(rng.integers(0, 5))
    head, _, body = base.partition(b"\r\n\r\n")
    if kind == 0:
        return mutate_bytes(base, rng)
    if kind == 1:                                   # an odd header
        odd = ODD_HEADERS[int(rng.integers(len(ODD_HEADERS)))]
        return head + b"\r\n" + odd + b"\r\n\r\n" + body
    if kind == 2 and body:                          # a mutated JSON body, its length told right or not
        text = mutate_text(body.decode(), rng).encode("utf-8", "surrogatepass")
        n = len(text) if rng.random() < 0.7 else int(rng.integers(0, len(text) + 200))
        lines = [ln for ln in head.split(b"\r\n") if not ln.lower().startswith(b"content-length")]
        return b"\r\n".join(lines) + b"\r\nContent-Length: " + str(n).encode() + b"\r\n\r\n" + text
    if kind == 3:                                   # bad UTF-8 somewhere
        i = int(rng.integers(0, len(base)))
        return base[:i] + bytes([0xC3, 0x28, 0xFF, 0xC0, 0x80][int(rng.integers(1, 5)):]) + base[i:]
    deep = ("[" * int(rng.integers(1, 20000))).encode()
    return (b"POST /api/set HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
            + str(len(deep) + 11).encode() + b"\r\n\r\n{\"values\": " + deep)


def ws_frame(opcode: int, payload: bytes, *, fin: bool = True, rsv: int = 0, mask: bool = True,
             length: int | None = None) -> bytes:
    n = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
    m = 0x80 if mask else 0
    if n < 126:
        head += bytes([m | n])
    elif n < 65536:
        head += bytes([m | 126]) + struct.pack(">H", n)
    else:
        head += bytes([m | 127]) + struct.pack(">Q", n & 0xFFFFFFFFFFFFFFFF)
    if not mask:
        return head + payload
    key = b"\x11\x22\x33\x44"
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def ws_case(rng: np.random.Generator) -> bytes:
    kind = int(rng.integers(0, 9))
    payload = json.dumps({"ack": 1, "overlays": ["mask"]}).encode()
    if kind == 0:
        return ws_frame(int(rng.integers(0, 16)), rng.integers(0, 256, int(rng.integers(0, 300)), np.uint8).tobytes())
    if kind == 1:                                   # a length that lies (up to 2^63)
        n = [126, 65535, 65536, 2 ** 31, 2 ** 63 - 1, 2 ** 64 - 1][int(rng.integers(6))]
        return ws_frame(1, payload, length=n)
    if kind == 2:                                   # unmasked
        return ws_frame(1, payload, mask=False)
    if kind == 3:                                   # a control frame fragmented, or too long
        op = [8, 9, 10][int(rng.integers(3))]
        return ws_frame(op, b"x" * int(rng.integers(0, 300)), fin=rng.random() < 0.5)
    if kind == 4:                                   # a continuation with nothing to continue, or a
        return ws_frame(1, payload[:5], fin=False) + ws_frame(1, payload[5:])   # new message inside one
    if kind == 5:                                   # bad UTF-8 text
        return ws_frame(1, b'{"ack": "\xff\xfe\xc0"}')
    if kind == 6:                                   # a close with a bad code or a 1-byte body
        return ws_frame(8, [b"\x00", struct.pack(">H", 999), struct.pack(">H", 5000) + b"\xff",
                            struct.pack(">H", 1000) + b"x" * 200][int(rng.integers(4))])
    if kind == 7:                                   # compressed (RSV1): garbage, or a deflate bomb
        if rng.random() < 0.5:
            return ws_frame(1, rng.integers(0, 256, 64, np.uint8).tobytes(), rsv=4)
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        bomb = c.compress(b"[" * (32 << 20)) + c.flush(zlib.Z_SYNC_FLUSH)
        return ws_frame(1, bomb[:-4], rsv=4)
    return b"".join(ws_frame(1, mutate_text(payload.decode(), rng).encode("utf-8", "surrogatepass"))
                    for _ in range(int(rng.integers(1, 20))))


async def exchange(port: int, data: bytes, *, ws_path: str | None = None, wait: float = 8.0) -> tuple[str, int]:
    """Send ``data`` (after a WebSocket handshake to ``ws_path`` when given); what came back:
    ("status", code), ("closed", 0), ("frames", bytes received) or ("hung", 0)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        if ws_path is not None:
            key = base64.b64encode(os.urandom(16)).decode()
            writer.write((f"GET {ws_path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                          f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                          "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n").encode())
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), wait)
            if not head.startswith(b"HTTP/1.1 101"):
                return "status", int(head.split()[1])
        writer.write(data)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        got = b""
        t_end = asyncio.get_running_loop().time() + wait
        while True:
            left = t_end - asyncio.get_running_loop().time()
            if left <= 0:
                return ("frames", len(got)) if ws_path is not None else ("hung", 0)
            try:
                chunk = await asyncio.wait_for(reader.read(65536), left)
            except (ConnectionError, asyncio.TimeoutError):
                chunk = b""
                if asyncio.get_running_loop().time() < t_end - 0.01:
                    return "closed", 0
                return ("frames", len(got)) if ws_path is not None else ("hung", 0)
            if not chunk:
                if ws_path is None and got.startswith(b"HTTP/"):
                    return "status", int(got.split()[1])
                return "closed", len(got)
            got += chunk
            if ws_path is None and b"\r\n" in got:
                return "status", int(got.split()[1]) if got.startswith(b"HTTP/") else -1
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


async def panel_case(sweep: Sweep, port: int, corpus: list[bytes], k: int, errors: _Errors,
                     tally: dict[str, Any]) -> None:
    """Case ``k``: an HTTP request (two in three) or WebSocket frames after a handshake."""
    rng = sweep.rng(k)
    if k % 3 == 2:
        path: str | None = "/ws/live" if k % 2 else "/ws/video"
        data, label = ws_case(rng), f"ws case {k} ({path})"
    else:
        path, data = None, http_case(corpus, rng)
        label = f"http case {k} ({data[:80]!r})"
    seen = len(errors.seen)
    try:
        kind, code = await exchange(port, data, ws_path=path)
    except (ConnectionError, asyncio.IncompleteReadError, asyncio.TimeoutError) as exc:
        kind, code = f"reset ({type(exc).__name__})", 0
    key = f"{kind} {code}" if kind == "status" else kind
    tally["answers"][key] = tally["answers"].get(key, 0) + 1
    if kind == "status" and code >= 500 and code != 503:
        sweep.fail(label, f"HTTP {code}")
    if kind == "hung":
        sweep.fail(label, "no answer and not closed within 8 s")
    for text in errors.seen[seen:]:                 # (cases run 24 at a time: the label is near)
        tally["logged"].setdefault(text.split("\n")[0][:160], []).append(label)


def fuzz_panel(sweep: Sweep, n: int) -> None:
    errors = _Errors()
    for name in ("aiohttp", "sensekit", "asyncio"):
        logging.getLogger(name).addHandler(errors)
    tmp = Path(tempfile.mkdtemp(prefix="fuzzpanel-"))
    panel, _runner, thread, stop, source = start_replay_panel(tmp / "venue.toml", speed=1.0, title="fuzz")
    port = int(panel.url.rsplit(":", 1)[1].strip("/"))
    corpus = http_corpus(port)
    tally: dict[str, Any] = {"answers": {}, "logged": {}}

    async def batches() -> None:
        for b in range(0, n, 24):
            with sweep.case(f"panel batch {b}..{b + 23}", limit=60):
                await asyncio.gather(*(panel_case(sweep, port, corpus, k, errors, tally)
                                       for k in range(b, min(n, b + 24))))
                sweep.count += min(n, b + 24) - b - 1

    asyncio.run(batches())
    with sweep.case("the panel after the sweep", limit=20):
        import urllib.request
        with urllib.request.urlopen(panel.url + "api/info", timeout=10) as r:
            if r.status != 200:
                sweep.fail("after", f"/api/info gave {r.status}")
        if not thread.is_alive():
            sweep.fail("after", "the run's thread ended")
    sweep.notes.append(f"answers: {dict(sorted(tally['answers'].items()))}")
    for text, labels in tally["logged"].items():
        if text.startswith("!"):
            sweep.fail(labels[0], f"logged {len(labels)} time(s) (one near this case): {text[1:]}")
        else:
            sweep.notes.append(f"logged {len(labels)} time(s): {text}")
    stop.set()
    panel.close()
    thread.join(5)
    source.close()
    shutil.rmtree(tmp, ignore_errors=True)


# --- live sources ---------------------------------------------------------------------------

def _jpeg(i: int) -> bytes:
    import cv2
    img = np.full((48, 64, 3), (i * 37) % 256, np.uint8)
    _, buf = cv2.imencode(".jpg", img)
    return bytes(buf)


class Mjpeg(BaseHTTPRequestHandler):
    """One MJPEG stream; ``server.mode`` says how it misbehaves."""

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        mode: str = self.server.mode  # type: ignore[attr-defined]
        rng: np.random.Generator = self.server.rng  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
        self.end_headers()
        try:
            for i in range(10_000):
                if self.server.stopping:  # type: ignore[attr-defined]
                    return
                jpg = _jpeg(i)
                boundary = b"--frame"
                if mode == "bad boundary" and i >= 3:
                    boundary = b"--fraMe-not-this-one"
                if mode == "50 MB frame" and i == 3:
                    jpg = jpg[:-2] + bytes(50 << 20) + jpg[-2:]
                part = boundary + b"\r\nContent-Type: image/jpeg\r\nContent-Length: " + \
                    str(len(jpg) if mode != "lying length" else len(jpg) * 1000).encode() + b"\r\n\r\n" + jpg + b"\r\n"
                if mode == "mutated" and i >= 2:
                    part = mutate_bytes(part, rng)
                if mode == "stops mid-frame" and i == 5:
                    self.wfile.write(part[:len(part) // 2])
                    self.wfile.flush()
                    return
                if mode == "stalls" and i == 5:
                    self.wfile.write(part[:len(part) // 2])
                    self.wfile.flush()
                    while not self.server.stopping:  # type: ignore[attr-defined]
                        time.sleep(0.1)
                    return
                self.wfile.write(part)
                self.wfile.flush()
                time.sleep(0.04)
        except (BrokenPipeError, ConnectionResetError):
            return


def mjpeg_case(sweep: Sweep, mode: str, k: int) -> None:
    from sensekit.capture.camera import CameraSource
    from sensekit.errors import SourceError

    server = ThreadingHTTPServer(("127.0.0.1", 0), Mjpeg)
    server.daemon_threads = True
    server.mode, server.rng, server.stopping = mode, sweep.rng(1000 + k), False  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/stream.mjpg"
    frames, events = 0, []
    with sweep.case(f"mjpeg '{mode}' #{k}", limit=40):
        cam = CameraSource(url, open_timeout_ms=3000, read_timeout_ms=1500)
        try:
            cam.open()
        except SourceError as exc:
            if "\n" in str(exc):
                sweep.fail(f"mjpeg '{mode}'", f"not one line: {exc!r}")
            events.append(f"open: {exc}")
        else:
            t_end = time.monotonic() + 6
            while time.monotonic() < t_end:
                if cam.read(timeout=0.5) is not None:
                    frames += 1
                events += [type(e).__name__ for e in cam.poll_status()]
            t0 = time.monotonic()
            cam.close()
            if time.monotonic() - t0 > 5:
                sweep.fail(f"mjpeg '{mode}'", f"close() took {time.monotonic() - t0:.1f} s")
    server.stopping = True  # type: ignore[attr-defined]
    server.shutdown()
    server.server_close()
    sweep.notes.append(f"mjpeg '{mode}' #{k}: {frames} frames, {events[:6]}")


def small_video(path: Path) -> Path:
    import cv2
    w = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), 12.0, (64, 48))
    rng = np.random.default_rng(5)
    for _ in range(24):
        w.write(rng.integers(0, 256, (48, 64, 3), dtype=np.uint8))
    w.release()
    return path


def small_wav(path: Path) -> Path:
    import soundfile as sf
    rng = np.random.default_rng(6)
    sf.write(str(path), (rng.standard_normal(8000) * 0.1).astype(np.float32), 8000, subtype="PCM_16")
    return path


def play_file(spec: str) -> int:
    from sensekit.capture.spec import open_source
    src = open_source(spec)
    n = 0
    src.open()
    try:
        for _ in src:
            n += 1
            if n > 200_000:
                raise AssertionError("more than 200,000 items from a 2 s file")
    finally:
        src.close()
    return n


def fuzz_sources(sweep: Sweep, n: int) -> None:
    from sensekit.errors import ConfigError, RecordingError, SourceError

    logging.getLogger().setLevel(logging.CRITICAL)
    tmp = Path(tempfile.mkdtemp(prefix="fuzzsrc-"))
    try:
        for k, mode in enumerate(["good", "bad boundary", "50 MB frame", "stops mid-frame", "stalls",
                                  "lying length", "mutated", "mutated", "mutated"]):
            mjpeg_case(sweep, mode, k)
        errors = (SourceError, ConfigError, RecordingError)
        video = small_video(tmp / "clip.mp4").read_bytes()
        wav = small_wav(tmp / "tone.wav").read_bytes()
        cut = tmp / "cut.mp4"
        per = max(1, n // 3)
        for k, at in enumerate(np.linspace(0, len(video), per, dtype=int)):
            cut.write_bytes(video[:at])
            spec = ("file:" if k % 2 == 0 else "camera:") + str(cut)
            if spec.startswith("camera:"):
                sweep.only(f"{spec.split(':')[0]} video cut to {at} of {len(video)} bytes", errors,
                           lambda: camera_file(str(cut)), limit=20)
            else:
                sweep.only(f"file video cut to {at} of {len(video)} bytes", errors, lambda: play_file(spec),
                           names=("cut.mp4",), limit=20)
        odd = tmp / "odd.wav"
        for k in range(n - per):
            rng = sweep.rng(5000 + k)
            data = bytearray(wav)
            if k % 2:
                at = int(rng.integers(0, 44 - 3))
                value = [0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 16, 3, 2 ** 20][int(rng.integers(7))]
                data[at:at + 4] = struct.pack("<I", value)
                label = f"wav header bytes {at}..{at + 3} set"
            else:
                data = bytearray(mutate_bytes(bytes(data[:64]), rng) + bytes(data[64:]))
                label = "wav header mutated"
            odd.write_bytes(bytes(data))
            sweep.only(f"{label} (case {k}, header {bytes(data[:44]).hex()})", errors,
                       lambda: play_file("file:" + str(odd)), names=("odd.wav",), limit=20)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def camera_file(path: str) -> int:
    from sensekit.capture.camera import CameraSource
    cam = CameraSource(path, loop=False)
    cam.open()
    n = 0
    try:
        t_end = time.monotonic() + 4
        while time.monotonic() < t_end:
            try:
                if cam.read(timeout=0.2) is not None:
                    n += 1
            except EOFError:
                break
    finally:
        cam.close()
    return n
