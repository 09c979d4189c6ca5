"""The hostile neighbour of ``soak.py --hostile``: floods a run's OSC control port and churns its
panel, from a process of its own (so the run's RSS is the run's), until SIGTERM; then prints its
counts as one JSON line.

    python benchmarks/soak_attackers.py --osc-port PORT --panel URL [--osc-rate 1000] [--seed 1]

OSC (``--osc-rate`` datagrams a second): valid settings (``motion.threshold``,
``activity.silence_level`` alternating values), issue 21's 28-byte negative-size bundle, random
bytes, oversized datagrams, deeply nested arrays, unknown addresses.

Panel, in a loop: ``GET /api/info``; ``POST /api/set`` valid and junk bodies (NaN, Infinity,
30,000 nested ``[``, 4,000-digit numbers, not JSON); a ``/ws/live`` client that reads a few
updates and leaves; a ``/ws/video`` client that takes two frames and leaves, after junk messages;
half-open connections that send part of a request and stall, their headers or (harden14) the body
of a POST (at most 20 open at once). Counts
every HTTP status; a 500 or a refused connection is an error.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import socket
import struct
import sys
import threading
import time
from collections import Counter
from typing import Any
from urllib.parse import urlparse

import aiohttp

NEGATIVE_ELEMENT = b"#bundle\0" + struct.pack(">Qi", 1, -4) + b"/a\0\0,\0\0\0"
#: the start of a request that then stalls: headers that never end, a body that never comes
HALF_REQUESTS = [b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ",
                 b"POST /api/set HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 60000\r\n\r\n{"]


def _msg(address: str, tag: str, value: Any) -> bytes:
    from pythonosc.osc_message_builder import OscMessageBuilder

    b = OscMessageBuilder(address=address)
    b.add_arg(value, tag)
    return bytes(b.build().dgram)


def osc_flood(port: int, rate: float, stop: threading.Event, counts: Counter[str], rng: random.Random) -> None:
    junk = [NEGATIVE_ELEMENT, b"/a\0\0," + b"[" * 3000 + b"\0" * 3, b"x" * 5000,
            b"/sensekit/set/nope\0\0,f\0\0\0\0\0\0",
            _msg("/sensekit/set/motion/threshold", "s", "9" * 400), _msg("/sensekit/set/motion/threshold", "f", 1e30)]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        n = 0
        start = time.monotonic()
        while not stop.is_set():
            if n % 4 == 0:
                dgram = _msg("/sensekit/set/motion/threshold", "f", 30.0 + n % 2)
                counts["osc_valid"] += 1
            elif n % 4 == 1:
                dgram = _msg("/sensekit/set/activity/silence_level", "f", 25.0 + n % 3)
                counts["osc_valid"] += 1
            elif n % 4 == 2:
                dgram = junk[n // 4 % len(junk)]
                counts["osc_junk"] += 1
            else:
                dgram = rng.randbytes(rng.randrange(1, 200))
                counts["osc_junk"] += 1
            try:
                s.sendto(dgram, ("127.0.0.1", port))
            except OSError:
                counts["osc_send_error"] += 1
            n += 1
            ahead = n / rate - (time.monotonic() - start)
            if ahead > 0:
                time.sleep(ahead)


JUNK_BODIES = ['{"x": NaN, "y": 1}', '{"box": [1, 2, Infinity, 4]}', "[" * 30000,
               '{"values": {"motion.threshold": ' + "9" * 4000 + "}}", "not json", '{"name": 5, "box": [0,0,1,1]}',
               '{"values": {"nope.key": 1}}', '{"texts": {"motion.threshold": "nan"}}']


async def panel_churn(url: str, stop: threading.Event, counts: Counter[str]) -> None:
    u = urlparse(url)
    half_open: list[socket.socket] = []
    timeout = aiohttp.ClientTimeout(total=20)
    async with aiohttp.ClientSession(timeout=timeout) as s:
        i = 0
        while not stop.is_set():
            i += 1
            try:
                async with s.get(url + "api/info") as r:
                    counts[f"http_{r.status}"] += 1
                body = json.dumps({"values": {"motion.threshold": 30 + i % 2}})
                async with s.post(url + "api/set", data=body, headers={"Content-Type": "application/json"}) as r:
                    counts[f"http_{r.status}"] += 1
                junk = JUNK_BODIES[i % len(JUNK_BODIES)]
                route = ("api/pick", "api/track-box", "api/zone", "api/set")[i % 4]
                async with s.post(url + route, data=junk, headers={"Content-Type": "application/json"}) as r:
                    counts[f"http_{r.status}"] += 1
                async with s.ws_connect(url + "ws/live") as ws:
                    for _ in range(3):
                        msg = await ws.receive(timeout=10)
                        counts["live_updates" if msg.type == aiohttp.WSMsgType.TEXT else "live_other"] += 1
                async with s.ws_connect(url + "ws/video") as ws:
                    await ws.send_str("[" * 30000)
                    await ws.send_str('{"ack": NaN}')
                    await ws.send_json({"overlays": ["mask"]})
                    for _ in range(2):
                        msg = await ws.receive(timeout=10)
                        counts["video_frames" if msg.type == aiohttp.WSMsgType.BINARY else "video_other"] += 1
                        await ws.send_json({"ack": 1})
            except (aiohttp.ClientError, TimeoutError, ConnectionError) as exc:
                counts[f"client_error_{type(exc).__name__}"] += 1
            half_open = [h for h in half_open if _alive(h)]
            if len(half_open) < 20:
                try:
                    h = socket.create_connection((u.hostname, u.port), timeout=2)
                    h.sendall(HALF_REQUESTS[i % len(HALF_REQUESTS)])
                    h.setblocking(False)
                    half_open.append(h)
                    counts["half_open_made"] += 1
                except OSError:
                    counts["half_open_refused"] += 1
            await asyncio.sleep(0.05)
    for h in half_open:
        h.close()


def _alive(h: socket.socket) -> bool:
    """False (and closed) once the server has closed a half-open connection."""
    try:
        if h.recv(1, socket.MSG_PEEK) == b"":
            h.close()
            return False
    except BlockingIOError:
        return True
    except OSError:
        h.close()
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--osc-port", type=int, required=True)
    p.add_argument("--panel", required=True, help="the panel's URL, ending in /")
    p.add_argument("--osc-rate", type=float, default=1000.0)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    counts: Counter[str] = Counter()
    flood = threading.Thread(target=osc_flood, args=(args.osc_port, args.osc_rate, stop, counts,
                                                     random.Random(args.seed)), daemon=True)
    flood.start()
    asyncio.run(panel_churn(args.panel, stop, counts))
    flood.join(5)
    print(json.dumps(dict(sorted(counts.items()))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
