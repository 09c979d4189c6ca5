"""Soak: a recording replayed in a loop through the full pipeline and a headless app.

    .venv/bin/python benchmarks/soak.py [--frames 1000000] [--app color_ball]
                                        [--recording recordings/demo.skrec] [--osc]
                                        [--hostile] [--seconds S]

What runs: ``ReplaySource(loop=True)`` feeds a real ``AppHost`` (headless, as fast as
possible; every step pumps the runner, updates the game and draws the window, HUD
included). The app's own stages run, and so does the full pipeline of
``sensekit events``: colour tracking, motion with zones, edges, level, activity,
claps with patterns and pitch. It is built through the documented ``STAGE_PROVIDERS``
options. A handler on ``"*"`` receives every event, so no stage is skipped for lack
of listeners. ``--osc`` also sends every event over UDP to a local receiver and counts
what arrives.

Printed: a line at each 10% of ``--frames`` video frames with the RSS (resident set
size, from ``/proc/self/statm``), the events so far, the lost and dropped counts and
the speed. At the end: per-pass event counts (every pass after the first should
match, since the replay is deterministic) and a verdict.

``--hostile`` (issue 21): the run also writes its events to a file (``--events``), listens
for settings on an OSC control port and serves a panel, while ``soak_attackers.py``, in a
process of its own, floods that port (valid settings and junk, 1,000 datagrams a second) and
churns the panel (clients that come and go, junk bodies and WebSocket messages, half-open
connections). Then every event must also reach the events file, no request may get a 5xx,
and the OSC and panel counts are printed. Valid settings change what the detectors emit, so
the per-pass comparison is off. ``--seconds`` runs for a time instead of a frame count.

Acceptance: RSS at the end is within 5% of RSS at the 10% mark, the process holds no more
descriptors and threads than at the 10% mark (beyond ``FD_SLACK`` / ``THREAD_SLACK``: the panel's
client connections and the attackers' in flight, with ``--hostile``), and zero events are
lost. Each 10% line also prints the descriptors, the threads and the simulated time (frames at
the recording's rate), and the end the growth per simulated hour. An event is lost when the
runner counted it but the handler never received it, when a pass of the loop produced fewer
events than the passes before it, or (with ``--osc``) when a message was sent but did not arrive. Dropped frames are
reported from the source's stats (a replay never drops any). Exit status 0 when
accepted, 1 otherwise.

Cost: about 2-6 ms per video frame on one core at 320x240. That puts 1,000,000 frames
at roughly 1-2 hours, so use ``--frames`` for short runs. Linux only (RSS comes from
``/proc``).
"""
from __future__ import annotations

import argparse
import gc
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

REPO = Path(__file__).resolve().parents[1]
DEFAULT_RECORDING = REPO / "recordings" / "demo.skrec"
RSS_TOLERANCE = 0.05
#: descriptors and threads the end may hold beyond the 10 % mark: the panel's connections to
#: clients that come and go (64 slots) and the attackers' sockets in flight (hostile), else none
FD_SLACK = {False: 2, True: 72}
THREAD_SLACK = {False: 1, True: 4}


def open_fds() -> int:
    """Descriptors this process holds (Linux ``/proc/self/fd``)."""
    return len(os.listdir("/proc/self/fd"))


def os_threads() -> int:
    """Threads of this process, the native ones (FFmpeg's, aiohttp's executor) included."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 0


def rss_mb() -> float:
    """Current resident set size in MB (Linux ``/proc/self/statm``)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


WANTED_OPTIONS = ["--track-color", "#eb2d14", "--motion", "--zones", "door=0,0,80,240;floor=0,160,320,80",
                  "--edges", "--activity", "25,500", "--clap", "--pattern", "2", "--pitch", "--level"]


def full_pipeline(recording: Path, source: Any) -> tuple[list[Any], list[str]]:
    """The stages ``sensekit events`` builds with every vision and audio option, for
    ``source``; and the options that the installed providers did not know."""
    from sensekit.cli import build_parser
    from sensekit.cli.events import _providers

    args, unknown = build_parser().parse_known_args(["events", str(recording), *WANTED_OPTIONS])
    stages: list[Any] = []
    for provider in _providers():
        stages.extend(provider.build_stages(args, source))
    return stages, unknown


@dataclass
class SoakResult:
    frames: int = 0
    steps: int = 0
    events_counted: int = 0
    events_received: int = 0
    lost_in_dispatch: int = 0
    lost_in_passes: int = 0
    osc_sent: int = 0
    osc_received: int = 0
    dropped_frames: int = 0
    wall_s: float = 0.0
    rss_marks: list[tuple[int, float]] = field(default_factory=list)
    #: at each 10 % mark: (simulated seconds, descriptors, threads)
    os_marks: list[tuple[float, int, int]] = field(default_factory=list)
    pass_events: list[int] = field(default_factory=list)
    hostile: bool = False
    event_file_lines: int = 0
    osc_stats: dict[str, int] = field(default_factory=dict)
    attacks: dict[str, int] = field(default_factory=dict)
    panel_refused: int = 0

    @property
    def server_errors(self) -> int:
        return sum(v for k, v in self.attacks.items() if k.startswith("http_5") and k != "http_503")

    @property
    def lost_in_file(self) -> int:
        return max(0, self.events_received - self.event_file_lines) if self.hostile else 0

    @property
    def lost(self) -> int:
        return (self.lost_in_dispatch + self.lost_in_passes + max(0, self.osc_sent - self.osc_received)
                + self.lost_in_file)

    @property
    def rss_growth(self) -> float:
        """(RSS at the end - RSS at 10%) / RSS at 10%."""
        if len(self.rss_marks) < 2:
            return 0.0
        first, last = self.rss_marks[0][1], self.rss_marks[-1][1]
        return (last - first) / first

    @property
    def fd_growth(self) -> int:
        return self.os_marks[-1][1] - self.os_marks[0][1] if len(self.os_marks) >= 2 else 0

    @property
    def thread_growth(self) -> int:
        return self.os_marks[-1][2] - self.os_marks[0][2] if len(self.os_marks) >= 2 else 0

    def per_simulated_hour(self) -> str:
        """Growth from the 10 % mark to the end, per simulated hour (the replay's clock)."""
        if len(self.os_marks) < 2 or self.os_marks[-1][0] <= self.os_marks[0][0]:
            return "not enough simulated time"
        hours = (self.os_marks[-1][0] - self.os_marks[0][0]) / 3600.0
        rss = self.rss_marks[-1][1] - self.rss_marks[0][1]
        return (f"over {hours:.2f} simulated hours: RSS {rss / hours:+.2f} MB/h, "
                f"descriptors {self.fd_growth / hours:+.1f}/h, threads {self.thread_growth / hours:+.1f}/h")

    @property
    def accepted(self) -> bool:
        return (abs(self.rss_growth) <= RSS_TOLERANCE and self.lost == 0 and self.server_errors == 0
                and self.fd_growth <= FD_SLACK[self.hostile] and self.thread_growth <= THREAD_SLACK[self.hostile])


def soak(frames: int, *, recording: Path = DEFAULT_RECORDING, app: str = "color_ball",  # noqa: C901 (see pyproject: later)
         osc: bool = False, hostile: bool = False, seconds: float | None = None,
         out: Callable[[str], None] = print) -> SoakResult:
    """Run the soak for ``frames`` video frames (or ``seconds``); print progress with ``out``."""
    from sensekit.app.host import AppHost, RunOptions
    from sensekit.app.registry import load
    from sensekit.capture.recording import ReplaySource

    res = SoakResult(hostile=hostile)
    # a private copy: the bundled recording may be regenerated while a long soak runs
    tmp = Path(tempfile.mkdtemp(prefix="sensekit-soak-"))
    recording = Path(shutil.copytree(recording, tmp / recording.name))
    source = ReplaySource(recording, loop=True)
    source.open()
    app_cls = load(app)
    events_file = tmp / "events.jsonl" if hostile else None
    host = AppHost(app_cls, source, RunOptions(headless=True, hud=True, events=events_file))
    stages, unknown = full_pipeline(recording, source)
    host.runner.stages.extend(stages)
    passes: list[int] = [0]

    def receive(event: Any) -> None:
        res.events_received += 1
        passes[-1] += 1

    host.dispatcher.on("*", receive)
    counter = sender = None
    if osc:
        from sensekit.osc import OscSender
        sys.path.insert(0, str(REPO))                  # the counting socket is a helper of the tests
        from tests.udp_receiver import UdpReceiver
        counter = UdpReceiver()
        sender = OscSender("127.0.0.1", counter.port)
        host.dispatcher.on("*", sender)
    hostile_parts = start_hostile(host) if hostile else None
    used = [o for o in WANTED_OPTIONS if o not in unknown]
    out(f"soak: {frames} frames of {recording.name} (looped) through app {app!r} "
        f"+ events {' '.join(used)}" + (" + OSC" if osc else "")
        + (" + hostile OSC and panel traffic, events to a file" if hostile else "")
        + (f" (not available here: {' '.join(unknown)})" if unknown else ""))
    marks = [max(1, round(frames * k / 10)) for k in range(1, 11)]
    start = time.perf_counter()
    time_marks = [start + seconds * k / 10 for k in range(1, 11)] if seconds else []
    loops_seen = 0
    try:
        while (host.runner.stats.frames < frames if not seconds else time.perf_counter() < start + seconds):
            host.step()
            res.steps += 1
            loops = source.stats()["loops"]
            if loops != loops_seen:      # a new pass began (events at the seam count to it)
                loops_seen = loops
                passes.append(0)
            if sender is not None and counter is not None:
                while sender.sent - counter.count > 2000:   # UDP: do not outrun the receiver
                    time.sleep(0.0005)
            n = host.runner.stats.frames
            while (time_marks and time.perf_counter() >= time_marks[0]) if seconds else (marks and n >= marks[0]):
                mark = n
                (time_marks if seconds else marks).pop(0)
                gc.collect()
                rss = rss_mb()
                res.rss_marks.append((mark, rss))
                simulated = n / (source.fps or 30.0)
                res.os_marks.append((simulated, open_fds(), os_threads()))
                stats = host.runner.stats
                total = stats.events + sum(v for k, v in stats.event_counts.items()
                                           if k in ("source_lost", "source_restored"))
                elapsed = time.perf_counter() - start
                out(f"{10 * len(res.rss_marks):3d}%  frames {n:>9}  rss {rss:8.1f} MB  "
                    f"events {total:>10}  lost {total - res.events_received:>3}  "
                    f"dropped {source.stats().get('dropped_frames', 0):>3}  "
                    f"{n / elapsed:7.0f} frames/s  {elapsed:8.1f} s  "
                    f"fds {res.os_marks[-1][1]:>4}  threads {res.os_marks[-1][2]:>3}  "
                    f"simulated {simulated / 3600:6.2f} h")
    finally:
        res.wall_s = time.perf_counter() - start
        if hostile_parts is not None:
            stop_hostile(hostile_parts, res)
        host.close()
        if events_file is not None:
            with open(events_file, "rb") as f:
                res.event_file_lines = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
        source.close()
        shutil.rmtree(tmp, ignore_errors=True)
    res.frames = host.runner.stats.frames
    res.events_counted = host.runner.stats.events
    res.lost_in_dispatch = max(0, res.events_counted - res.events_received)
    res.dropped_frames = int(source.stats().get("dropped_frames", 0))
    res.pass_events = passes
    full = passes[1:-1]     # complete passes after the first (the last one is cut short)
    if full and not hostile:
        res.lost_in_passes = sum(max(full) - p for p in full)
    if sender is not None and counter is not None:
        deadline = time.monotonic() + 5
        while counter.count < sender.sent and time.monotonic() < deadline:
            time.sleep(0.01)
        res.osc_sent, res.osc_received = sender.sent, counter.count
        sender.close()
        counter.close()
    return res


def start_hostile(host: Any) -> dict[str, Any]:
    """OSC control and a panel on ``host``, and the attackers' process aimed at them."""
    import subprocess

    from sensekit.osc import OscControl
    from sensekit.panel import parse_panel_address
    from sensekit.panel.attach import app_panel

    control = OscControl("127.0.0.1", 0, tuning=host.tuning, pause=None).start()
    panel = app_panel(host, parse_panel_address("127.0.0.1:0", None))
    attackers = subprocess.Popen([sys.executable, str(Path(__file__).with_name("soak_attackers.py")),
                                  "--osc-port", str(control.port), "--panel", panel.url],
                                 stdout=subprocess.PIPE, text=True)
    return {"control": control, "panel": panel, "attackers": attackers}


def stop_hostile(parts: dict[str, Any], res: SoakResult) -> None:
    import json

    attackers = parts["attackers"]
    attackers.terminate()
    try:
        stdout, _ = attackers.communicate(timeout=30)
        res.attacks = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else {}
    except Exception as exc:  # noqa: BLE001 - reported, never hides the soak's own result
        attackers.kill()
        res.attacks = {"attackers_failed": 1}
        print(f"attackers: {exc!r}", file=sys.stderr)
    res.osc_stats = parts["control"].stats()
    res.panel_refused = parts["panel"].server.refused
    parts["panel"].close()
    parts["control"].close()


def report(res: SoakResult, out: Callable[[str], None] = print) -> None:
    full = res.pass_events[1:-1]
    out(f"frames {res.frames}, app steps {res.steps}, {res.wall_s:.1f} s "
        f"({res.frames / max(res.wall_s, 1e-9):.0f} frames/s)")
    out(f"events: {res.events_counted} counted by the runner, {res.events_received} received; "
        f"passes: first {res.pass_events[0] if res.pass_events else 0}, "
        + (f"then {min(full)}..{max(full)} per pass over {len(full)} full passes"
           if full else "no full pass after the first"))
    if res.osc_sent:
        out(f"OSC: {res.osc_sent} sent, {res.osc_received} received")
    if res.hostile:
        out(f"events file: {res.event_file_lines} lines for {res.events_received} events received "
            f"({res.lost_in_file} missing)")
        out("OSC control: " + ", ".join(f"{k}={v}" for k, v in res.osc_stats.items()))
        out("attackers: " + ", ".join(f"{k}={v}" for k, v in res.attacks.items())
            + f"; server errors (5xx but 503) {res.server_errors}")
    out(f"dropped frames {res.dropped_frames}; lost events {res.lost} "
        f"(dispatch {res.lost_in_dispatch}, passes {res.lost_in_passes}"
        + (" (not compared: settings change)" if res.hostile else "")
        + f", OSC {max(0, res.osc_sent - res.osc_received)}, file {res.lost_in_file})")
    if res.rss_marks:
        out(f"RSS {res.rss_marks[0][1]:.1f} MB at 10% -> {res.rss_marks[-1][1]:.1f} MB at the end "
            f"({100 * res.rss_growth:+.2f}%, limit +-{100 * RSS_TOLERANCE:.0f}%)")
    if res.os_marks:
        out(f"descriptors {res.os_marks[0][1]} at 10% -> {res.os_marks[-1][1]} at the end "
            f"({res.fd_growth:+d}, limit +{FD_SLACK[res.hostile]}); threads {res.os_marks[0][2]} -> "
            f"{res.os_marks[-1][2]} ({res.thread_growth:+d}, limit +{THREAD_SLACK[res.hostile]})")
        out("growth " + res.per_simulated_hour())
    out("ACCEPTED" if res.accepted else "NOT ACCEPTED")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=1_000_000, help="video frames (default 1e6)")
    parser.add_argument("--recording", type=Path, default=DEFAULT_RECORDING)
    parser.add_argument("--app", default="color_ball", help="headless app (default color_ball)")
    parser.add_argument("--osc", action="store_true", help="also send every event over OSC/UDP")
    parser.add_argument("--hostile", action="store_true",
                        help="OSC flood, panel churn and junk from another process; events to a file")
    parser.add_argument("--seconds", type=float, help="run this long instead of --frames")
    args = parser.parse_args(argv)
    if args.hostile:             # the CLI's logging: warnings rate-limited, as in a show
        from sensekit.cli import setup_logging
        setup_logging(0, True)
    if args.frames < 10:
        parser.error("--frames must be at least 10")
    res = soak(args.frames, recording=args.recording, app=args.app, osc=args.osc, hostile=args.hostile,
               seconds=args.seconds, out=lambda s: print(s, flush=True))
    report(res, out=lambda s: print(s, flush=True))
    return 0 if res.accepted else 1


if __name__ == "__main__":
    sys.exit(main())
