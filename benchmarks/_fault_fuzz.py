"""The fault matrix's rows for what harden16's fuzz sweep (``benchmarks/fuzz_inputs.py``) found:
requests the panel's HTTP layer cannot parse, long MIDI map keys, damaged gesture models and
an incomplete recording whose WAV is cut short. ``fuzz_rows`` adds them through the matrix's
``row``.
"""
from __future__ import annotations

import contextlib
import io
import json
import logging
import shutil
import socket
import sys
from pathlib import Path
from typing import Any, Callable

Row = Callable[[str, str, str, bool], None]
Cli = Callable[[list[str]], tuple[Any, str, float]]


def _exchange(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request.replace(b"PORT", str(port).encode()))
        got = b""
        while b"\r\n\r\n" not in got:
            chunk = s.recv(8192)
            if not chunk:
                break
            got += chunk
        s.settimeout(0.5)
        with contextlib.suppress(TimeoutError, OSError):
            got += s.recv(8192)
    return got


def _answer(got: bytes) -> str:
    head, _, body = got.partition(b"\r\n\r\n")
    try:
        text = json.loads(body)["error"]
    except (ValueError, KeyError):
        text = body.decode("utf-8", "replace")
    return f"HTTP {head.split()[1].decode() if head else '?'}: {text}"


def panel_fuzz_rows(tmp: Path, row: Row) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _replay_panel import start_replay_panel

    from sensekit.ratelimit import install_rate_limit

    stderr = io.StringIO()
    handler = logging.StreamHandler(stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))   # as `sensekit` formats its stderr
    root = logging.getLogger()
    root.addHandler(handler)
    limit = install_rate_limit()
    panel, _runner, thread, stop, source = start_replay_panel(tmp / "venue.toml", speed=1.0, title="fuzz")
    port = int(panel.url.rsplit(":", 1)[1].strip("/"))
    try:
        body = b'{"x": 10, "y": 20.5}'
        got = _exchange(port, b"POST /api/pick HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nContent-Type: application/json\r\n"
                        b"Content-Length: %d\r\nContent-Encoding: gzip\r\n\r\n" % len(body) + body)
        row("panel", "POST /api/pick whose body is not the gzip it claims", _answer(got), b" 400 " in got[:20])
        got = _exchange(port, b"GET /ws/live HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nUpgrade: websocke\xc0\x80t\r\n"
                        b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                        b"Sec-WebSocket-Version: 13\r\n\r\n")
        row("panel", "GET /ws/live with an Upgrade header that is not UTF-8", _answer(got), b" 400 " in got[:20])
        stderr.truncate(0)
        stderr.seek(0)
        bad = [b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nHost: 127.0.0.1:PORT\r\n\r\n",
               b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nX-" + b"a" * 9000 + b": 1\r\n\r\n",
               b"GET /a\xc0\x80pi/info \xb2 HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\n"]
        answers = [_exchange(port, bad[k % 3])[:13] for k in range(30)]
        limit.flush()                                         # the count the rate limit held back
        lines = [ln for ln in stderr.getvalue().splitlines() if ln.strip()]
        tracebacks = sum(ln.startswith("Traceback") for ln in lines)
        row("panel", "30 requests aiohttp cannot parse (two Hosts, a 9 kB header, a bad request line)",
            f"{sum(b' 400 ' in a for a in answers)} x HTTP 400; {len(lines)} line(s) on stderr, {tracebacks} "
            f"traceback(s): {lines[0] if lines else ''}", tracebacks == 0 and 0 < len(lines) <= 12
            and all(b" 400" in a for a in answers))
    finally:
        stop.set()
        panel.close()
        thread.join(5)
        source.close()
        handler.removeFilter(limit)
        root.removeHandler(handler)


def file_fuzz_rows(tmp: Path, rec: Path, row: Row, cli: Cli) -> None:
    venue = tmp / "midi-long.toml"
    venue.write_text(f'[midi]\n[midi.map]\n"{"1" * 5000}" = "note 60"\n')
    code, err, took = cli(["events", str(rec), "--level", "--clap", "--profile", str(venue), "--midi", "none-such"])
    lines = [ln for ln in err.splitlines() if ln.strip()]
    row("command line", "--midi, the profile's MIDI map with a key of 5,000 characters",
        f"exit {code}, {took:.1f} s, {len(err)} characters: {lines[-1] if lines else ''}",
        code == 2 and len(lines) == 1 and len(err) < 1000)
    import numpy as np

    from sensekit.vision.taught import TaughtGestures, hand_features

    rng = np.random.default_rng(4)
    good = TaughtGestures().fit({"open": [hand_features(rng.random((21, 3))) for _ in range(3)],
                                 "fist": [hand_features(rng.random((21, 3))) for _ in range(3)]}).to_dict()
    model = tmp / "gestures.json"
    model.write_text(json.dumps({**good, "features": [good["features"][0][:10]] + good["features"][1:]}))
    code, err, took = cli(["events", str(rec), "--hands", "--gestures", str(model), "--max-items", "1"])
    lines = [ln for ln in err.splitlines() if ln.strip()]
    row("command line", "--gestures, a model whose first feature row is cut to 10 numbers",
        f"exit {code}, {took:.1f} s: {lines[-1] if lines else ''}",
        code == 2 and len(lines) == 1 and "gestures.json" in err and "rows of 57 numbers" in err)


def recording_fuzz_rows(tmp: Path, rec: Path, row: Row) -> None:
    from sensekit.capture.base import AudioBlock, VideoFrame
    from sensekit.capture.replay import ReplaySource
    from sensekit.errors import RecordingError

    copy = Path(shutil.copytree(rec, tmp / "wav-cut.skrec"))
    wav = copy / "audio.wav"
    wav.write_bytes(wav.read_bytes()[:45])
    meta = json.loads((copy / "meta.json").read_text())
    meta["complete"] = False
    (copy / "meta.json").write_text(json.dumps(meta))
    try:
        items = list(ReplaySource(copy))
        frames = sum(isinstance(i, VideoFrame) for i in items)
        samples = sum(len(i.samples) for i in items if isinstance(i, AudioBlock))
        row("recording", "incomplete, audio.wav cut to 45 bytes (its checksums cover 2 s)",
            f"replay: {frames} of {meta['frames']} frames, {samples} samples", frames == meta["frames"])
    except RecordingError as exc:
        row("recording", "incomplete, audio.wav cut to 45 bytes (its checksums cover 2 s)", f"replay: {exc}", False)


def fuzz_rows(tmp: Path, rec: Path, row: Row, cli: Cli) -> None:
    """Every row of this file, each through ``row``."""
    panel_fuzz_rows(tmp, row)
    file_fuzz_rows(tmp, rec, row, cli)
    recording_fuzz_rows(tmp, rec, row)
