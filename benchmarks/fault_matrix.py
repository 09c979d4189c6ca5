"""The fault matrix of issue 21, run against this checkout: each case, what it gives now.

    .venv/bin/python benchmarks/fault_matrix.py [--out table.md]

Each case is tried the way a careless operator or a hostile neighbour would: a command line run
in-process (``sensekit.cli.main``, stderr captured, a 60 s time limit), a damaged copy of a small
recording made here, or a request to a panel or an OSC port of a real run. A row gives the
case, the outcome (exit status or HTTP status, the one line printed, or the count) and whether
it is what the issue asks for: a one-line error, or counted and dropped; never a traceback, a
hang or silently replayed damage. Prints a Markdown table (the one in docs/reliability.md).
Takes about a minute. Linux only (FIFOs, /dev/zero, sparse files).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import socket
import struct
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable
from unittest import mock

import numpy as np

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

NEGATIVE_ELEMENT = b"#bundle\0" + struct.pack(">Qi", 1, -4) + b"/a\0\0,\0\0\0"
ROWS: list[tuple[str, str, str, bool]] = []
TMP = [""]                        # the scratch folder, shown as TMP in the table


def row(area: str, case: str, outcome: str, ok: bool) -> None:
    if TMP[0]:
        outcome = outcome.replace(TMP[0], "TMP")
    ROWS.append((area, case, outcome.replace("|", "\\|").replace("\n", " / ")[:160], ok))


def cli(argv: list[str], timeout: float = 60.0) -> tuple[int | None, str, float]:
    """Run ``sensekit ARGV`` in a thread: (exit status or None if it hung, stderr, seconds)."""
    from sensekit.cli import main

    err = io.StringIO()
    out: list[int] = []

    def work() -> None:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                out.append(main(argv))
            except BaseException as exc:  # noqa: BLE001 - a traceback is the finding
                err.write(f"Traceback: {type(exc).__name__}: {exc}")
                out.append(-1)

    t0 = time.perf_counter()
    t = threading.Thread(target=work, daemon=True)
    t.start()
    t.join(timeout)
    return (out[0] if out else None), err.getvalue().strip(), time.perf_counter() - t0


def cli_row(area: str, case: str, argv: list[str]) -> None:
    code, err, took = cli(argv)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    ok = code == 2 and len(lines) == 1 and "Traceback" not in err
    shown = lines[-1] if lines else ""
    row(area, case, f"exit {code}, {took:.1f} s: {shown}" if code is not None else "HUNG", ok)


def _open_fds(path: Path) -> int:
    """This process's descriptors open on ``path``."""
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            n += os.readlink(f"/proc/self/fd/{fd}") == str(path.resolve())
    return n


def start_matrix(tmp: Path, rec: Path) -> None:
    """Starts that fail half-way: what stays open (harden14)."""
    from sensekit.cli import midi_args

    venue = tmp / "midi-ok.toml"
    venue.write_text('[midi.map]\nclap = "note 60"\n')
    class Port:
        closed = False

        def send(self, message: Any) -> None:
            pass

        def close(self) -> None:
            self.closed = True

    ports: list[Port] = []

    def fake_open(name: str, *, virtual: bool = False) -> Port:
        ports.append(Port())
        return ports[-1]

    busy = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    busy.bind(("127.0.0.1", 0))
    with busy, mock.patch.object(midi_args, "open_port", fake_open):   # the port closes, open_port comes back
        for command in (["events", str(rec), "--level"], ["run", "clapper", "--source", str(rec), "--headless"]):
            code, err, took = cli([*command, "--profile", str(venue), "--midi", "x",
                                   "--osc-control", str(busy.getsockname()[1])])
            port_closed = bool(ports) and ports[-1].closed
            err = err.replace(f":{busy.getsockname()[1]}", ":PORT")
            row("start", f"{command[0]} --midi, then --osc-control on a port in use",
                f"exit {code}, {took:.1f} s: {err.splitlines()[-1] if err else ''}; the MIDI port closed: "
                f"{port_closed}", code == 2 and port_closed and "Traceback" not in err)
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    events = tmp / "start-events.jsonl"
    try:
        code, err, took = cli(["run", "clapper", "--source", str(rec), "--headless", "--events", str(events),
                               "--panel", f"127.0.0.1:{taken.getsockname()[1]}"])
    finally:
        err = err.replace(f":{taken.getsockname()[1]}", ":PORT").replace(f", {taken.getsockname()[1]})", ", PORT)")
        taken.close()
    left = _open_fds(events)
    row("start", "run --events FILE --panel on a port in use",
        f"exit {code}, the events file left open {left} time(s): {err.splitlines()[-1] if err else ''}",
        code == 2 and left == 0)


def pause_row(rec: Path) -> None:
    """``/sensekit/pause 1`` to ``sensekit run APP --osc-control`` (harden14)."""
    from pythonosc.udp_client import SimpleUDPClient

    from sensekit.cli import main
    from sensekit.osc import free_udp_port

    port = free_udp_port()
    out, err, done = io.StringIO(), io.StringIO(), []

    def work() -> None:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            done.append(main(["run", "clapper", "--source", str(rec), "--headless", "--realtime",
                              "--frames", "60", "--osc-control", str(port)]))
    t = threading.Thread(target=work, daemon=True)
    t.start()
    client, deadline = SimpleUDPClient("127.0.0.1", port), time.monotonic() + 60
    while t.is_alive() and time.monotonic() < deadline:
        client.send_message("/sensekit/pause", 1)
        t.join(0.02)
    simulated = next((line.split("frames, ")[1] for line in out.getvalue().splitlines()
                      if line.startswith("clapper: ")), "no closing line")
    tracebacks = err.getvalue().count("Traceback")
    row("OSC", "/sensekit/pause 1 to sensekit run (60 steps of 1/30 s)",
        f"exit {done[0] if done else None}: {simulated}; {tracebacks} traceback(s) on stderr",
        done == [0] and tracebacks == 0 and not simulated.startswith("2.0 s"))


def fifo_events_row(tmp: Path) -> None:
    """``sensekit run --events FIFO`` read by a consumer to its end, as ``cat`` reads (harden14)."""
    fifo = tmp / "events-fifo.jsonl"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def consumer() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())
    reader = threading.Thread(target=consumer, daemon=True)
    reader.start()
    from sensekit.paths import recordings_dir

    code, err, _took = cli(["run", "color_ball", "--source", str(recordings_dir() / "demo.skrec"), "--headless",
                            "--frames", "30", "--events", str(fifo)])
    reader.join(20)
    if reader.is_alive():                         # the run never opened it: let the reader go
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    lines = len(got[0].splitlines()) if got else 0
    row("command line", "run --events FIFO, its reader reading to the end (as cat)",
        f"exit {code}, {lines} lines read{': ' + err.splitlines()[-1] if err else ''}", code == 0 and lines > 0)


def save_order_row(tmp: Path) -> None:
    """Two saves of a running piece written in the other order than they were read (harden14)."""
    from sensekit.profile import load_profile, save_profile
    try:
        from sensekit.profile.save import RunValues
    except ImportError:                              # a checkout before harden14: no order kept
        RunValues = dict  # type: ignore[misc,assignment]

    venue = tmp / "order.toml"
    venue.write_text("[audio]\ngain = 20.0\n")
    older, newer = RunValues({"audio.gain": 31.0}), RunValues({"audio.gain": 35.0})
    save_profile(newer, venue)                       # the panel's save, read second, written first
    save_profile(older, venue)                       # Shift+S, read first, written last
    gain = load_profile(venue)["audio.gain"]
    row("profile", "Shift+S read gain 31, the panel then read 35; the panel's written first",
        f"the profile holds gain {gain}", gain == 35.0)


def make_recording(path: Path) -> Path:
    from _fuzz_cases import seeded_recording

    return seeded_recording(path, (64, 48), 24, 16000, 40)


def midi_cases(tmp: Path, rec: str) -> list[tuple[str, list[str]]]:
    """Venue profiles whose [midi] map holds a bad number, and a profile that is a folder."""
    cases: list[tuple[str, list[str]]] = []
    for name, rule in [("a range bound of 400 digits", '"level.level" = "cc 7 -' + "9" * 400 + '..0"'),
                       ("a range 1.2.3..5", '"level.level" = "cc 7 1.2.3..5"'),
                       ("a note number of 5,000 digits", 'clap = "note ' + "9" * 5000 + '"')]:
        path = tmp / f"midi-{len(cases)}.toml"
        path.write_text("[midi.map]\n" + rule + "\n")
        cases.append((f"--midi, the profile's MIDI map with {name}",
                      ["events", rec, "--level", "--clap", "--profile", str(path), "--midi", "none-such"]))
    folder = tmp / "venue-folder.toml"
    folder.mkdir()
    cases.append(("--midi, the profile a folder", ["events", rec, "--level", "--profile", str(folder), "--midi", "x"]))
    return cases


def cli_matrix(tmp: Path, rec: Path) -> None:
    fifo = tmp / "fifo"
    os.mkfifo(fifo)
    big = tmp / "big.toml"
    with open(big, "wb") as f:
        f.truncate(3 << 30)
    deep, digits = tmp / "deep.toml", tmp / "digits.toml"
    deep.write_text("[audio]\ngain = " + "[" * 5000 + "\n")
    digits.write_text("[audio]\ngain = 1" + "0" * 400 + "\n")
    for case, argv in [
        ("--profile /dev/zero", ["events", str(rec), "--profile", "/dev/zero"]),
        ("--profile FIFO (no writer)", ["events", str(rec), "--profile", str(fifo)]),
        ("--profile, a 3 GB sparse file", ["events", str(rec), "--profile", str(big)]),
        ("--gestures FIFO (no writer)", ["events", str(rec), "--hands", "--gestures", str(fifo)]),
        ("--gestures /dev/zero", ["events", str(rec), "--hands", "--gestures", "/dev/zero"]),
        ("profile with 5,000 nested [", ["events", str(rec), "--profile", str(deep)]),
        ("profile number of 400 digits", ["events", str(rec), "--profile", str(digits)]),
        ("--set audio.gain=1 + 400 zeros", ["events", str(rec), "--set", "audio.gain=1" + "0" * 400]),
        ("calibrate --seconds 1e30", ["calibrate", str(rec), "--out", str(tmp / "v.toml"), "--seconds", "1e30"]),
        ("--pattern-gap-ms nan (no --pattern)", ["events", str(rec), "--clap", "--pattern-gap-ms", "nan"]),
        ("record --seconds 1e30", ["record", str(tmp / "r.skrec"), "--source", str(rec), "--seconds", "1e30"]),
        ("inspect FIFO", ["inspect", str(fifo)]),
        ("inspect /dev/zero", ["inspect", "/dev/zero"]),
        *midi_cases(tmp, str(rec)),
    ]:
        cli_row("command line", case, argv)
    for name in ("meta.json", "audio.wav"):
        copy = Path(shutil.copytree(rec, tmp / f"fifo-{name}.skrec"))
        (copy / name).unlink()
        os.mkfifo(copy / name)
        cli_row("command line", f"recording whose {name} is a FIFO", ["events", str(copy)])
    copy = Path(shutil.copytree(rec, tmp / "ts40.skrec"))
    with open(copy / "video_ts.csv", "r+b") as f:
        f.truncate(40 << 30)
    cli_row("command line", "a 40 GB (sparse) video_ts.csv", ["events", str(copy)])
    copy = Path(shutil.copytree(rec, tmp / "null.skrec"))
    meta = json.loads((copy / "meta.json").read_text())
    meta["video"] = None
    (copy / "meta.json").write_text(json.dumps(meta))
    cli_row("recording", '"video": null hiding an existing video', ["inspect", str(copy)])


def _damage_named(copy: Path) -> tuple[str, bool]:
    """What ``inspect`` and a replay say of the damaged recording ``copy``, and whether both name
    the damage (inspect: damaged; the replay: a ``RecordingError``)."""
    from sensekit.capture.recording import ReplaySource
    from sensekit.capture.recording_check import check_recording
    from sensekit.errors import RecordingError

    report = check_recording(copy)
    try:
        list(ReplaySource(copy))
        replay = "replays (!)"
    except RecordingError as exc:
        replay = f"replay: {exc}"
    return (f"inspect {report.status}: {report.problems[0] if report.problems else ''}; {replay}",
            report.status == "damaged" and replay.startswith("replay:"))


def _flip(path: Path, bits: int, seed: int, start: int | None = None) -> None:
    data = bytearray(path.read_bytes())
    rng = np.random.default_rng(seed)
    lo = int(len(data) * 0.6) if start is None else start
    for pos in rng.integers(lo, lo + 300, size=bits):
        data[pos] ^= 1 << int(rng.integers(0, 8))
    path.write_bytes(bytes(data))


def corruption_matrix(tmp: Path, rec: Path) -> None:
    from sensekit.capture.recording_check import check_recording
    from sensekit.capture.wav import read_wav_info
    from sensekit.errors import RecordingError
    from tests.capture.recording_versions import to_version_1

    for version in (2, 1):
        for target in ("video", "audio.wav"):
            for bits in (1, 64):
                copy = Path(shutil.copytree(rec, tmp / f"flip-v{version}-{target}-{bits}.skrec"))
                if version == 1:
                    to_version_1(copy)
                if target == "video":
                    path = copy / "video.mkv" if version == 1 else sorted((copy / "video").glob("*.mkv"))[1]
                    _flip(path, bits, bits)
                else:
                    info = read_wav_info(copy / "audio.wav")
                    _flip(copy / "audio.wav", bits, bits, start=info.data_offset + 5000)
                what = "a segment" if target == "video" and version == 2 else (
                    "video.mkv" if target == "video" else "audio.wav")
                row("recording", f"{bits} bit(s) flipped in {what} (version {version})",
                    *_damage_named(copy))
    copy = Path(shutil.copytree(rec, tmp / "ffconcat.skrec"))
    lines = (copy / "video.ffconcat").read_text().splitlines()
    lines[1], lines[2] = lines[2], lines[1]
    (copy / "video.ffconcat").write_text("\n".join(lines) + "\n")
    report = check_recording(copy)
    row("recording", "video.ffconcat damaged (two lines swapped)",
        f"inspect {report.status}: {report.problems[0] if report.problems else ''}", report.status == "damaged")
    copy = Path(shutil.copytree(rec, tmp / "ts.skrec"))
    rows = (copy / "video_ts.csv").read_bytes().split(b"\n")
    rows[11] = rows[11][:-1] + bytes([rows[11][-1] ^ 1])     # frame 10 moved by 1 us, still valid
    (copy / "video_ts.csv").write_bytes(b"\n".join(rows))
    row("recording", "a digit of a video_ts.csv row flipped (still a valid time)", *_damage_named(copy))
    if os.path.exists("/dev/full"):
        from sensekit.capture.base import VideoFrame
        from sensekit.capture.recording import Recorder

        path = tmp / "full.skrec"
        r = Recorder(path, video=(64, 48, 12.0), fsync=False)
        outcome = "no error (!)"
        try:
            for i in range(24):
                r.write(VideoFrame(i, i / 12, np.full((48, 64, 3), i, np.uint8)))
                partial = path / "video" / f"{r.committed_frames:06d}.partial.mkv"
                if r.committed_frames and r.frames == r.committed_frames and not partial.exists():
                    os.symlink("/dev/full", partial)
        except RecordingError as exc:
            outcome = str(exc)
        kept = r.committed_frames
        r.close(complete=False)
        status = check_recording(path).status
        row("recording", "disk full (a segment written to /dev/full: ENOSPC, unreported by OpenCV)",
            f"{outcome}; inspect: {status}, {kept} frames kept", outcome != "no error (!)" and status == "incomplete")


def osc_matrix() -> None:
    from sensekit.audio.activity import ActivityDetector
    from sensekit.cli.osc_listen import listen
    from sensekit.osc import OscControl
    from sensekit.settings import Tuning

    detector = ActivityDetector()
    control = OscControl("127.0.0.1", 0, tuning=Tuning(lambda: [detector])).start()
    good = b"/sensekit/set/threshold\0,f\0\0" + struct.pack(">f", 31.0)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _ in range(100):
            s.sendto(NEGATIVE_ELEMENT, ("127.0.0.1", control.port))
        s.sendto(good, ("127.0.0.1", control.port))
    deadline = time.monotonic() + 10
    while control.accepted < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    t0 = time.monotonic()
    control.close()
    closed = time.monotonic() - t0
    st = control.stats()
    row("OSC", "100 x the 28-byte negative-size bundle, then a setting (OscControl)",
        f"malformed {st['osc_malformed']}, setting applied: {control.last}, closed in {closed:.2f} s",
        st["osc_malformed"] == 100 and control.accepted == 1 and closed < 1.0)
    ports: list[int] = []
    ready = threading.Event()
    got: list[int] = []
    err = io.StringIO()

    def bound(port: int) -> None:
        ports.append(port)
        ready.set()

    def work() -> None:
        with contextlib.redirect_stderr(err):
            got.append(listen(0, count=1, seconds=10, out=io.StringIO(), ready=bound))
    t = threading.Thread(target=work, daemon=True)
    t.start()
    ready.wait(5)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(NEGATIVE_ELEMENT, ("127.0.0.1", ports[0]))
        s.sendto(good, ("127.0.0.1", ports[0]))
    t.join(10)
    row("OSC", "the 28-byte bundle, then a message (osc-listen)",
        f"{got[0] if got else 'HUNG'} message printed; stderr: {err.getvalue().strip().splitlines()[-1]}",
        got == [1] and "1 malformed" in err.getvalue())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, help="also write the table here")
    p.add_argument("--writers-only", action="store_true", help="only the rows of benchmarks/_fault_writers.py")
    p.add_argument("--fuzz-only", action="store_true", help="only the rows of benchmarks/_fault_fuzz.py")
    p.add_argument("--uptime-only", action="store_true", help="only the rows of benchmarks/_fault_uptime.py")
    p.add_argument("--panel-only", action="store_true", help="only the rows of benchmarks/_fault_panel.py")
    p.add_argument("--bursts-only", action="store_true", help="only the rows of benchmarks/_fault_bursts.py")
    p.add_argument("--mic-only", action="store_true", help="only the rows of benchmarks/_fault_mic.py")
    p.add_argument("--harden20-only", action="store_true", help="only the rows of benchmarks/_fault_h20.py")
    p.add_argument("--harden21-only", action="store_true", help="only the rows of benchmarks/_fault_h21.py")
    p.add_argument("--harden22-only", action="store_true", help="only the rows of benchmarks/_fault_h22.py")
    p.add_argument("--harden23-only", action="store_true", help="only the rows of benchmarks/_fault_h23.py")
    p.add_argument("--harden24-only", action="store_true", help="only the rows of benchmarks/_fault_h24.py")
    p.add_argument("--harden25-only", action="store_true", help="only the rows of benchmarks/_fault_h25.py")
    p.add_argument("--harden26-only", action="store_true", help="only the rows of benchmarks/_fault_h26.py")
    p.add_argument("--harden27-only", action="store_true", help="only the rows of benchmarks/_fault_h27.py")
    p.add_argument("--harden29-only", action="store_true", help="only the rows of benchmarks/_fault_h29.py")
    args = p.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))       # tests.capture helpers
    tmp = Path(tempfile.mkdtemp(prefix="sensekit-faults-"))
    TMP[0] = str(tmp)
    try:
        rec = make_recording(tmp / "small.skrec")
        steps: list[Callable[[], None]] = [lambda: osc_matrix(), lambda: cli_matrix(tmp, rec),
                                           lambda: start_matrix(tmp, rec), lambda: save_order_row(tmp),
                                           lambda: pause_row(rec), lambda: fifo_events_row(tmp),
                                           lambda: corruption_matrix(tmp, rec), lambda: panel_rows(row)]
        from _fault_fuzz import fuzz_rows
        from _fault_panel import panel_rows                  # (benchmarks/: this script's folder)
        from _fault_writers import writer_rows
        from sensekit.paths import recordings_dir
        writers = [lambda: writer_rows(tmp, str(recordings_dir() / "demo.skrec"), row, cli_row)]
        from _fault_uptime import uptime_rows
        fuzz: list[Callable[[], None]] = [lambda: fuzz_rows(tmp, rec, row, cli)]
        uptime: list[Callable[[], None]] = [lambda: uptime_rows(tmp, rec, row)]
        panel: list[Callable[[], None]] = [lambda: panel_rows(row)]
        from _fault_bursts import burst_rows
        from _fault_mic import mic_rows
        bursts: list[Callable[[], None]] = [lambda: burst_rows(row)]
        mic: list[Callable[[], None]] = [lambda: mic_rows(tmp, row)]
        from _fault_h20 import harden20_rows
        h20: list[Callable[[], None]] = [lambda: harden20_rows(tmp, rec, row)]
        from _fault_h21 import harden21_rows
        h21: list[Callable[[], None]] = [lambda: harden21_rows(tmp, row)]
        from _fault_h22 import harden22_rows
        h22: list[Callable[[], None]] = [lambda: harden22_rows(tmp, row)]
        from _fault_h23 import harden23_rows
        h23: list[Callable[[], None]] = [lambda: harden23_rows(tmp, row)]
        from _fault_h24 import harden24_rows
        h24: list[Callable[[], None]] = [lambda: harden24_rows(tmp, row)]
        from _fault_h25 import harden25_rows
        h25: list[Callable[[], None]] = [lambda: harden25_rows(tmp, row)]
        from _fault_h26 import harden26_rows
        h26: list[Callable[[], None]] = [lambda: harden26_rows(tmp, row)]
        from _fault_h27 import harden27_rows
        h27: list[Callable[[], None]] = [lambda: harden27_rows(tmp, row)]
        from _fault_h29 import harden29_rows
        h29: list[Callable[[], None]] = [lambda: harden29_rows(tmp, row)]
        steps = (writers if args.writers_only else fuzz if args.fuzz_only else uptime if args.uptime_only
                 else panel if args.panel_only else bursts if args.bursts_only else mic if args.mic_only
                 else h20 if args.harden20_only else h21 if args.harden21_only else h22 if args.harden22_only
                 else h23 if args.harden23_only else h24 if args.harden24_only
                 else h25 if args.harden25_only else h26 if args.harden26_only else h27 if args.harden27_only
                 else h29 if args.harden29_only
                 else steps + writers + fuzz + uptime + bursts + mic + h20 + h21 + h22 + h23 + h24 + h25 + h26
                 + h27 + h29)
        for step in steps:
            step()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    lines = ["| area | case | what it gives now | as asked |", "|---|---|---|---|"]
    lines += [f"| {a} | {c} | {o} | {'yes' if ok else '**no**'} |" for a, c, o, ok in ROWS]
    lines.append(f"\n{sum(ok for *_, ok in ROWS)} of {len(ROWS)} cases as asked.")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0 if all(ok for *_, ok in ROWS) else 1


if __name__ == "__main__":
    sys.exit(main())
