"""``sensekit osc-listen`` as a user runs it, under a flood (hardening 7).

    .venv/bin/python benchmarks/osc_listen_flood.py [SECONDS]

Starts ``sensekit osc-listen PORT`` (output to files), lets it start (2 s), sends it valid
settings and two kinds of junk (7 of 9 datagrams valid) from another process as fast as that
goes for ``SECONDS`` (3), then Ctrl-C (SIGINT). Prints what was sent, the seconds from SIGINT
to exit, the listener's CPU time (start-up included) and peak RSS, the lines it wrote to
stdout and stderr, and its last stderr lines (the end-of-run counts). Asserts nothing.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from multiprocessing import Process
from pathlib import Path

from pythonosc.osc_message_builder import OscMessageBuilder


def _setting(value: float) -> bytes:
    b = OscMessageBuilder("/sensekit/set/activity/silence_level")
    b.add_arg(value)
    return b.build().dgram


def _flood(port: int, seconds: float) -> None:
    grams = [_setting(float(10 + i % 7)) for i in range(7)] + [b"junk!", b"\x00" * 6]
    n, end = 0, time.monotonic() + seconds
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        while time.monotonic() < end:
            for _ in range(100):
                s.sendto(grams[n % len(grams)], ("127.0.0.1", port))
                n += 1
    print(f"sent {n} datagrams in {seconds:g} s", flush=True)


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="osc_listen_flood_") as name:
        _run(port, seconds, Path(name))


def _run(port: int, seconds: float, folder: Path) -> None:
    with open(folder / "out.txt", "w") as out, open(folder / "err.txt", "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "sensekit", "osc-listen", str(port)], stdout=out, stderr=err)
        time.sleep(2.0)
        sender = Process(target=_flood, args=(port, seconds))
        sender.start()
        sender.join()
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, _, usage = os.wait4(proc.pid, 0)
        print(f"exit {time.monotonic() - t0:.2f} s after SIGINT; CPU {usage.ru_utime + usage.ru_stime:.2f} s; "
              f"peak RSS {usage.ru_maxrss // 1024} MB")
    lines_out = (folder / "out.txt").read_text().count("\n")
    lines_err = (folder / "err.txt").read_text().splitlines()
    print(f"stdout {lines_out} lines, stderr {len(lines_err)} lines; its last lines:")
    print("\n".join("  " + ln for ln in lines_err[-3:]))


if __name__ == "__main__":
    main()
