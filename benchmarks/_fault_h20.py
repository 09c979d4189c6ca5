"""The fault matrix's rows for harden20: OSC out (``--osc HOST:PORT``) when the receiver goes away,
and an incomplete recording whose timestamps fail their checksum early.

Each row runs ``sensekit events`` on the bundled demo in a fresh Python process (this checkout
first on ``PYTHONPATH``) against real UDP sockets on this machine: a port nothing listens on (the
kernel answers "port unreachable"), a broadcast address, and a receiver (``sensekit osc-listen``)
killed mid-show and started again on its port. The name-with-two-addresses row calls
``OscSender`` in this process with a resolver made of the real ``getaddrinfo`` of ``::1`` and
``127.0.0.1`` (no name on this machine gives both). ``osc_out_rows`` adds them through the
matrix's ``row``; about 20 s. The recording row damages a copy of the matrix's small recording
(24 frames) and runs ``sensekit events --records`` and ``sensekit inspect`` on it.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

Row = Callable[[str, str, str, bool], None]
ROOT = Path(__file__).resolve().parents[1]


def _env(**extra: str) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1", **extra)


def _sensekit(args: list[str], env: dict[str, str] | None = None, **kw: Any) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "sensekit", *args], env=env or _env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _end_counts(err: str) -> dict[str, int]:
    end = [ln for ln in err.splitlines() if ln.startswith("OSC at the end: ")]
    return {k: int(v) for k, v in re.findall(r"(osc_\w+) (\d+)", end[-1])} if end else {}


def _closed_port_row(row: Row) -> None:
    port = _free_port()
    p = _sensekit(["events", "demo", "--level", "--osc", f"127.0.0.1:{port}"])
    _out, err = p.communicate(timeout=120)
    counts = _end_counts(err)
    said = [ln for ln in err.splitlines() if "nothing listens" in ln]
    ok = p.returncode == 0 and len(said) == 1 and counts.get("osc_refused", 0) > 0 and "Traceback" not in err
    row("OSC out", "events demo --level --osc to a port nothing listens on (ICMP port unreachable)",
        f"exit {p.returncode}; {len(said)} warning(s): {said[0] if said else '-'}; {counts}", ok)


def _broadcast_row(row: Row) -> None:
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind(("0.0.0.0", 0))
    rx.settimeout(0.5)
    port = int(rx.getsockname()[1])
    try:
        p = _sensekit(["events", "demo", "--level", "--osc", f"255.255.255.255:{port}"])
        _out, err = p.communicate(timeout=120)
        got = 0
        try:
            while True:
                rx.recv(65536)
                got += 1
        except (TimeoutError, OSError):
            pass
    finally:
        rx.close()
    counts = _end_counts(err)
    ok = p.returncode == 0 and counts.get("osc_errors", 1) == 0 and counts.get("osc_sent", 0) > 0 and got > 0
    row("OSC out", "events demo --level --osc 255.255.255.255:PORT (a broadcast), a receiver on 0.0.0.0",
        f"exit {p.returncode}; {counts}; {got} received", ok)


def _listener(port: int) -> subprocess.Popen[str]:
    return _sensekit(["osc-listen", str(port), "--seconds", "90"], bufsize=1)


def _count_lines(proc: subprocess.Popen[str], seen: list[int], enough: threading.Event) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("/sensekit/"):
            seen[0] += 1
            if seen[0] >= 20:
                enough.set()


def _restart_row(row: Row) -> None:
    port = _free_port()
    first = _listener(port)
    got1, got2 = [0], [0]
    enough, unused = threading.Event(), threading.Event()
    reader1 = threading.Thread(target=_count_lines, args=(first, got1, enough), daemon=True)
    reader1.start()
    show = _sensekit(["events", "demo", "--level", "--realtime", "--max-items", "600",
                      "--osc", f"127.0.0.1:{port}"])
    while not enough.wait(0.1):             # until the listener has bound and printed 20 events
        if show.poll() is not None:
            break
    first.send_signal(signal.SIGINT)        # the receiver quits mid-show
    first.wait(timeout=30)
    reader1.join(timeout=5)
    time.sleep(2.0)
    second = _listener(port)                # and comes back on its port
    reader2 = threading.Thread(target=_count_lines, args=(second, got2, unused), daemon=True)
    reader2.start()
    _out, err = show.communicate(timeout=120)
    second.send_signal(signal.SIGINT)
    second.wait(timeout=30)
    reader2.join(timeout=5)
    said = [ln for ln in err.splitlines() if "nothing listens" in ln]
    back = [ln for ln in err.splitlines() if "takes the events" in ln]
    counts = _end_counts(err)
    ok = (show.returncode == 0 and len(said) == 1 and len(back) == 1 and got1[0] > 0 and got2[0] > 0
          and counts.get("osc_refused", 0) > 0 and "Traceback" not in err)
    row("OSC out", "the receiver (osc-listen) quits mid-show (a paced demo), is back 2 s later",
        f"exit {show.returncode}; {len(said)} warning, {len(back)} back line: {back[0] if back else '-'}; "
        f"received {got1[0]} then {got2[0]}; {counts}", ok)


def _two_addresses_row(row: Row) -> None:
    from sensekit.events import Clap
    from sensekit.osc import OscSender, decode

    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind(("127.0.0.1", 0))
    rx.settimeout(0.02)
    port = int(rx.getsockname()[1])

    def both(host: str, port: int, **kw: Any) -> list[tuple[Any, ...]]:
        return socket.getaddrinfo("::1", port, **kw) + socket.getaddrinfo("127.0.0.1", port, **kw)

    got = 0
    try:
        sender = OscSender("localhost", port, resolve=both)
    except TypeError:                                 # a sender without `resolve`: ::1 only
        sender = OscSender("::1", port)
    try:
        for i in range(100):
            sender(Clap(t=float(i), strength=0.5))
            with contextlib.suppress(TimeoutError, OSError):
                got += len(decode(rx.recv(65536)))
    finally:
        rx.close()
        sender.close()
    row("OSC out", "a name giving ::1 then 127.0.0.1, the receiver on 127.0.0.1 only (100 events)",
        f"{got} of 100 received; {sender.stats()}", got >= 99)


def _early_timestamp_damage_row(tmp: Path, rec: Path, row: Row, frame: int) -> None:
    copy = Path(shutil.copytree(rec, tmp / f"early-ts-{frame}.skrec"))
    path = copy / "video_ts.csv"
    lines = path.read_bytes().split(b"\n")
    line = bytearray(lines[frame + 1])          # its time 1 us off, still valid
    line[-1] ^= 1
    lines[frame + 1] = bytes(line)
    path.write_bytes(b"\n".join(lines))
    meta = json.loads((copy / "meta.json").read_text())
    meta["complete"] = False
    (copy / "meta.json").write_text(json.dumps(meta))
    ev = _sensekit(["events", str(copy), "--records"])
    out, err = ev.communicate(timeout=120)
    frames = sum(" frame " in ln for ln in out.splitlines())
    ins = _sensekit(["inspect", str(copy)])
    report, _ = ins.communicate(timeout=120)
    video = next((ln for ln in report.splitlines() if ln.startswith("video ")), "")
    shown = [ln for ln in err.splitlines() if ln.strip()]
    said = re.search(r"(\d+)( of \d+ listed)? frames", video)
    ok = (ev.returncode == 0 and "Traceback" not in err and said is not None and int(said.group(1)) == frames
          and "unreadable" not in report and len(shown) <= 2)
    row("recording", f"incomplete, the timestamp row of frame {frame} of 24 fails its checksum "
        "(events --records, inspect)",
        f"events exit {ev.returncode}, {frames} frames played, {len(shown)} line(s): {shown[-1] if shown else '-'}; "
        f"inspect: {video.split(',')[-1].strip()}", ok)


def _flip_bits(path: Path, at: float, bits: int, seed: int) -> None:
    import numpy as np

    data = bytearray(path.read_bytes())
    rng = np.random.default_rng(seed)
    for pos in rng.integers(int(len(data) * at), int(len(data) * at) + 200, size=bits):
        data[pos] ^= 1 << int(rng.integers(0, 8))
    path.write_bytes(bytes(data))


def _looped_damage_row(tmp: Path, rec: Path, row: Row) -> None:
    copy = Path(shutil.copytree(rec, tmp / "looped.skrec"))
    _flip_bits(sorted((copy / "video").glob("*.mkv"))[1], 0.05, 64, 3)
    _flip_bits(copy / "audio.wav", 0.5, 8, 2)
    meta = json.loads((copy / "meta.json").read_text())
    meta["complete"] = False
    (copy / "meta.json").write_text(json.dumps(meta))
    ev = _sensekit(["events", str(copy), "--level", "--loop", "--max-items", "640"])
    _out, err = ev.communicate(timeout=120)
    shown = [ln for ln in err.splitlines() if ln.strip()]
    ok = ev.returncode == 0 and "Traceback" not in err and len(shown) <= 4
    row("recording", "incomplete, a damaged segment and damaged audio, looped 10 times (events --loop)",
        f"exit {ev.returncode}, {len(shown)} line(s) on stderr; the last: {shown[-1] if shown else '-'}", ok)


SAVE = "from sensekit.profile.save import save_profile; save_profile({'audio.gain': 40.0}, 'venue.toml')"


def _save_fsync_row(tmp: Path, row: Row) -> None:
    """A profile save watched by strace: is the folder fsynced after the rename (a power cut)?"""
    if not Path("/usr/bin/strace").exists():
        row("profile", "a save's rename survives a power cut (strace)", "skipped: no strace", True)
        return
    folder = tmp / "fsync-save"
    folder.mkdir()
    r = subprocess.run(["/usr/bin/strace", "-f", "-qq", "-e", "trace=openat,rename,renameat,renameat2,fsync",
                        sys.executable, "-c", SAVE], cwd=folder, env=_env(), capture_output=True, text=True,
                       timeout=120)
    lines = r.stderr.splitlines()
    at = next((i for i, ln in enumerate(lines) if "rename" in ln and "venue.toml\"" in ln), None)
    after = lines[at + 1:at + 3] if at is not None else []
    opened = re.search(r"O_DIRECTORY.*= (\d+)$", after[0]) if after else None
    ok = opened is not None and len(after) > 1 and f"fsync({opened.group(1)})" in after[1]
    shown = " / ".join(re.sub(r"^\[pid +\d+\] ", "", a).strip() for a in after) or "-"
    row("profile", "save_profile watched by strace: what follows the rename onto venue.toml",
        f"exit {r.returncode}: {shown}", ok)


def _camera_lost_record_row(tmp: Path, row: Row) -> None:
    """``sensekit record`` from an MJPEG stream whose server stops for 2 s mid-take."""
    from tests.capture.mjpeg_server import MjpegServer

    out = tmp / "camera-lost.skrec"
    with MjpegServer(fps=15) as server:
        p = _sensekit(["record", str(out), "--camera", server.url, "--seconds", "8", "--no-progress"])
        time.sleep(3.0)
        server.stop()
        time.sleep(2.0)
        server.start()
        _o, err = p.communicate(timeout=120)
    ins = _sensekit(["inspect", str(out)])
    report, _ = ins.communicate(timeout=120)
    said = next((ln.strip() for ln in report.splitlines() if "no frame" in ln), "")
    lost = sum(": lost (" in ln for ln in err.splitlines())
    ok = p.returncode == 0 and ins.returncode == 0 and bool(said) and lost == 1
    row("camera", "record --camera MJPEG whose server stops 2 s mid-take, then inspect",
        f"record exit {p.returncode}, {lost} lost line; inspect exit {ins.returncode}: "
        f"{said or 'nothing said of it'}", ok)


def harden20_rows(tmp: Path, rec: Path, row: Row) -> None:
    for step in (_closed_port_row, _broadcast_row, _restart_row, _two_addresses_row):
        try:
            step(row)
        except Exception as exc:  # noqa: BLE001 - the row says what went wrong
            row("OSC out", step.__name__, f"the row could not run: {type(exc).__name__}: {exc}", False)
    for frame in (2, 9):
        try:
            _early_timestamp_damage_row(tmp, rec, row, frame)
        except Exception as exc:  # noqa: BLE001
            row("recording", "early timestamp damage", f"the row could not run: {type(exc).__name__}: {exc}", False)
    try:
        _camera_lost_record_row(tmp, row)
    except Exception as exc:  # noqa: BLE001
        row("camera", "record while lost", f"the row could not run: {type(exc).__name__}: {exc}", False)
    try:
        _save_fsync_row(tmp, row)
    except Exception as exc:  # noqa: BLE001
        row("profile", "save fsync", f"the row could not run: {type(exc).__name__}: {exc}", False)
    try:
        _looped_damage_row(tmp, rec, row)
    except Exception as exc:  # noqa: BLE001
        row("recording", "looped damage", f"the row could not run: {type(exc).__name__}: {exc}", False)
