"""``run --realtime`` paces a replay at recorded speed; progress bars show on a terminal only."""
from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios

from sensekit.cli import main

ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}


def _fps(out: str) -> float:
    return float(re.search(r"clapper: 20 frames, [\d.]+ s simulated, ([\d.]+) fps", out).group(1))


def test_run_realtime_plays_a_replay_at_recorded_speed(tmp_path, capsys):
    # 20 steps of 1/30 s: paced, they cannot take less than 0.63 s (a busy machine only slows them)
    assert main(["run", "clapper", "--headless", "--frames", "20", "--realtime",
                 "--screenshot", str(tmp_path / "a.png")]) == 0
    assert _fps(capsys.readouterr().out) <= 32.0


def _stderr_of(cmd: list[str], *, terminal: bool) -> str:
    if not terminal:
        proc = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        return proc.stderr
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))   # a terminal 80 columns wide
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:               # the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert proc.wait(timeout=300) == 0
    return b"".join(chunks).decode(errors="replace")


def test_events_shows_progress_on_a_terminal_and_none_in_a_log(tmp_path):
    cmd = [sys.executable, "-m", "sensekit", "events", "demo", "--clap"]
    on_tty = _stderr_of(cmd, terminal=True)
    assert "events:" in on_tty and "/20.0 s" in on_tty, on_tty[-500:]
    logged = _stderr_of(cmd, terminal=False)
    assert "\r" not in logged and "events:" not in logged


def test_plot_and_snapshot_show_progress_on_a_terminal(tmp_path):
    plot = _stderr_of([sys.executable, "-m", "sensekit", "plot", "demo", "--out", str(tmp_path / "p.png")],
                      terminal=True)
    assert "plot:" in plot and "/20.0 s" in plot
    snap = _stderr_of([sys.executable, "-m", "sensekit", "snapshot", "demo", "--frame", "45",
                       "--out", str(tmp_path / "s.png")], terminal=True)
    assert "snapshot:" in snap and "/3.1 s" in snap, snap[-500:]
    quiet = _stderr_of([sys.executable, "-m", "sensekit", "-q", "plot", "demo", "--out", str(tmp_path / "q.png")],
                       terminal=True)
    assert "plot:" not in quiet


def test_record_shows_progress_on_a_terminal_and_none_in_a_log(tmp_path):
    # record drew its bar whatever stderr was: `sensekit record ... 2> log` filled the log with
    # '\r' frames, where events, plot and snapshot write none there
    def cmd(name: str) -> list[str]:
        return [sys.executable, "-m", "sensekit", "record", str(tmp_path / name), "--source", "demo",
                "--seconds", "1"]

    on_tty = _stderr_of(cmd("a.skrec"), terminal=True)
    assert "recording a.skrec:" in on_tty, on_tty[-500:]
    proc = subprocess.run(cmd("b.skrec"), env=ENV, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    logged = proc.stderr
    assert "\r" not in logged and "recording b.skrec:" not in logged, logged
    assert logged == "", logged                                 # the closing line is on stdout, as run's
    assert proc.stdout.startswith("saved ") and proc.stdout.count("\n") == 1, proc.stdout
