"""The fault matrix's rows for harden21: an OSC host name that does not resolve when the show
starts (an installation started at boot, before DNS), one whose address changes (a new DHCP
lease), one that is not a host name, and a recording's renames through a power cut.

The name rows run ``sensekit events`` on the bundled demo, paced (``--realtime``), in a fresh
Python process with the real resolver made to read a hosts file of the row's own:
``LD_PRELOAD=libnss_wrapper.so NSS_WRAPPER_HOSTS=TMP/hosts`` (Debian package ``libnss-wrapper``;
nothing of the machine's own ``/etc/hosts`` is touched). The file is empty at the start and
names ``lights.test`` a few seconds later; then it names another address while the receiver at
the old one quits. The receivers are ``sensekit osc-listen`` processes. The recording row runs
``strace`` on ``sensekit record --source replay:...`` (3 s) and checks that every rename of
``meta.json`` is followed by an fsync of the recording's folder. About 60 s.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from _fault_common import NSS as NSS, _hosts as _hosts, _listener, _stop as _stop, hosts_file, nss_absent, show
from _fault_h20 import _end_counts, _env, _sensekit

Row = Callable[[str, str, str, bool], None]
ROOT = Path(__file__).resolve().parents[1]


def _said(err: str, text: str) -> list[str]:
    return [ln for ln in err.splitlines() if text in ln]


def _late_dns_row(tmp: Path, row: Row) -> None:
    case = "events demo --realtime --osc lights.test:PORT, the name in the hosts file only 3 s after the show started"
    if nss_absent(row, case):
        return
    hosts, port = hosts_file(tmp, "late-hosts", "")
    rx, seen, _, _ = _listener(port)
    demo = show(hosts, port, 600)
    lines: list[str] = []
    started = threading.Event()

    def read() -> None:
        assert demo.stderr is not None
        for line in demo.stderr:
            lines.append(line)
            if "cannot resolve" in line or "sending events to" in line:
                started.set()
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    while not started.wait(0.1) and demo.poll() is None:   # its first look-up has failed
        pass
    time.sleep(3.0)
    _hosts(hosts, "127.0.0.1 lights.test\n")   # DNS is up, 3 s into the show
    demo.wait(timeout=180)
    reader.join(timeout=10)
    err = "".join(lines)
    time.sleep(0.5)
    _stop(rx)
    yet, now = _said(err, "cannot resolve 'lights.test' yet"), _said(err, "resolves now")
    counts = _end_counts(err)
    ok = (demo.returncode == 0 and len(yet) == 1 and len(now) == 1 and seen[0] > 0
          and counts.get("osc_unresolved", 0) > 0 and "Traceback" not in err)
    row("OSC out", case, f"exit {demo.returncode}; {len(yet)} warning, then: "
        f"{now[0].split('OSC: ', 1)[-1] if now else '-'}; {seen[0]} received; {counts}", ok)


def _moved_row(tmp: Path, row: Row) -> None:
    case = ("events demo --realtime --osc lights.test:PORT; mid-show the name moves to 127.0.0.2 and the "
            "receiver at 127.0.0.1 quits (osc-listen on each)")
    if nss_absent(row, case):
        return
    hosts, port = hosts_file(tmp, "moved-hosts", "127.0.0.1 lights.test\n")
    old, seen_old, some, _ = _listener(port)
    new, seen_new, _, _ = _listener(port, "127.0.0.2")
    demo = show(hosts, port, 600)
    while not some.wait(0.1):                  # until the old receiver has 20 events
        if demo.poll() is not None:
            break
    _hosts(hosts, "127.0.0.2 lights.test\n")   # a new lease
    time.sleep(1.5)
    _stop(old)                                 # and nothing at the old address now
    _out, err = demo.communicate(timeout=180)
    time.sleep(0.5)
    _stop(new)
    moved = _said(err, "moved from")
    counts = _end_counts(err)
    ok = (demo.returncode == 0 and len(moved) == 1 and seen_old[0] > 0 and seen_new[0] > 0
          and "Traceback" not in err)
    row("OSC out", case, f"exit {demo.returncode}; {moved[0].split('OSC: ', 1)[-1] if moved else 'no move said'}; "
        f"received {seen_old[0]} at the old address, then {seen_new[0]} at the new; {counts}", ok)


def _malformed_row(row: Row) -> None:
    p = _sensekit(["events", "demo", "--max-items", "3", "--osc", "lights local:9000"])
    _out, err = p.communicate(timeout=120)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    ok = p.returncode == 2 and len(lines) == 1 and "is not a host name" in err
    row("OSC out", "events demo --osc 'lights local:9000' (not a host name: never resolves)",
        f"exit {p.returncode}, {len(lines)} line: {lines[-1] if lines else '-'}", ok)


def _recording_row(tmp: Path, row: Row) -> None:
    case = "strace of sensekit record --source replay:DEMO --seconds 3: the renames of meta.json"
    strace = shutil.which("strace")
    if strace is None:
        row("recording", case, "not run: strace is absent", False)
        return
    from sensekit.paths import recordings_dir
    out = tmp / "durable" / "take.skrec"
    out.parent.mkdir()
    r = subprocess.run([strace, "-f", "-qq", "-e", "trace=openat,rename,renameat,renameat2,fsync",
                        sys.executable, "-m", "sensekit", "record", str(out), "--source",
                        f"replay:{recordings_dir() / 'demo.skrec'}", "--seconds", "3", "--no-progress"],
                       env=_env(), capture_output=True, text=True, timeout=180)
    lines = [ln.split("] ", 1)[-1] for ln in r.stderr.splitlines()]
    metas, durable = 0, 0
    for i, line in enumerate(lines):
        if "rename" in line and 'meta.json"' in line and line.rstrip().endswith("= 0"):
            metas += 1
            fds: set[str] = set()
            for after in lines[i + 1:]:
                if "rename" in after:
                    break
                m = re.match(r'openat\(AT_FDCWD, "([^"]+)", O_RDONLY[^)]*\) = (\d+)', after)
                if m and m.group(1).rstrip("/") == str(out):
                    fds.add(m.group(2))
                m = re.match(r"fsync\((\d+)\)\s+= 0", after)
                if m and m.group(1) in fds:
                    durable += 1
                    break
    ok = r.returncode == 0 and metas >= 3 and durable == metas
    row("recording", case, f"exit {r.returncode}; {durable} of {metas} renames of meta.json followed by an "
        "fsync of the recording's folder", ok)


def harden21_rows(tmp: Path, row: Row) -> None:
    _late_dns_row(tmp, row)
    _moved_row(tmp, row)
    _malformed_row(row)
    _recording_row(tmp, row)
