"""The fault matrix's rows for harden19: the microphone and the audio recording path.

Each PortAudio row runs a fresh Python process on a paced ALSA fake microphone
(``tests/capture/alsa_pacedmic.py``: the ``file`` plugin reading a FIFO a feeder writes in real
time; the feeder holding a period back is a device that delivers nothing, its read blocked). The
recorder rows move the recorder's clock (``recorder._monotonic``) by hand. ``mic_rows`` adds
them through the matrix's ``row``; about a minute (three live runs of 10-20 s). Rows are
skipped, with a row saying why, where the fake microphone cannot run.
"""
from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any, Callable

import numpy as np
from _fault_uptime import WarningLines

Row = Callable[[str, str, str, bool], None]
RATE, PERIOD, HANG_AT = 48000, 512, 100

READER = """
import json, sys, time
from sensekit.capture.microphone import MicrophoneSource
src = MicrophoneSource("sensekitmic0", sample_rate=48000, block_size=512, stall_timeout_s=float(sys.argv[1]))
src.open()
t0 = time.monotonic()
blocks, events, restored = [], [], None
while time.monotonic() - t0 < float(sys.argv[2]) and (restored is None or time.monotonic() - restored < 1.0):
    b = src.read(timeout=0.1)
    if b is not None:
        blocks.append([b.t, int(round(float(b.samples.max()) * 32768))])
    for e in src.poll_status():
        events.append(type(e).__name__)
        restored = time.monotonic() if type(e).__name__ == "SourceRestored" else restored
src.close()
print(json.dumps({"blocks": blocks, "events": events, "stats": src.stats()}), flush=True)
"""

RECORD = """
import json, sys
from sensekit.capture.microphone import MicrophoneSource
from sensekit.capture.record_loop import record_source
src = MicrophoneSource("sensekitmic0", sample_rate=48000, block_size=512)
s = record_source(src, "rec.skrec", seconds=float(sys.argv[1]), progress=False)
print(json.dumps({"audio_samples": s["audio_samples"]}), flush=True)
"""


def _paced(tmp: Path, name: str, hang_s: float, code: str, args: list[str], count: int = 1
           ) -> tuple[subprocess.CompletedProcess[str], dict[int, float]]:
    from tests.capture.alsa_pacedmic import PacedMics

    release = threading.Event()

    def fill(mic: int, n: int) -> np.ndarray:
        if n == HANG_AT and hang_s:
            release.wait(hang_s)                    # the pipe stays open, nothing comes
        return np.full(PERIOD, 1 + n % 30000, np.int16)

    folder = tmp / name
    with PacedMics(folder, count, rate=RATE, period=PERIOD, fill=fill) as mics:
        try:
            r = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], env=mics.env,
                               capture_output=True, text=True, timeout=90, cwd=str(folder))
        finally:
            release.set()
        return r, dict(mics.written[0])


def _step_after_hang(out: dict[str, Any]) -> float:
    blocks = out["blocks"]
    k = next(i for i, (_t, marker) in enumerate(blocks) if marker >= 1 + HANG_AT)
    return float(blocks[k][0] - blocks[k - 1][0])


def _live_rows(tmp: Path, row: Row) -> None:
    r, _ = _paced(tmp, "lost", 5.0, READER, ["2.0", "30"])
    out = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else {}
    step = _step_after_hang(out) if out else -1.0
    row("microphone", "delivers nothing for 5 s (a blocked read), then goes on (stall timeout 2 s)",
        f"{', '.join(out.get('events', [])[:2]) or r.stderr[-120:]}; the first block after it starts "
        f"{step:.3f} s after the one before (was 0.011 s: stamped 5 s early)",
        out.get("events", [])[:2] == ["SourceLost", "SourceRestored"] and step >= 2.0)
    r, _ = _paced(tmp, "quiet", 4.0, READER, ["30.0", "9"])
    out = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else {}
    step = _step_after_hang(out) if out else -1.0
    resyncs = out.get("stats", {}).get("clock_resyncs")
    row("microphone", "delivers nothing for 4 s and goes on by itself (before the stall timeout, 30 s here)",
        f"the block after it starts {step:.3f} s after the one before, clock_resyncs {resyncs} (was "
        "0.011 s: every later block 4 s early)", step >= 2.0 and resyncs == 1)
    r, written = _paced(tmp, "record", 12.0, RECORD, ["20"])
    rec = tmp / "record" / "rec.skrec"
    if r.returncode != 0 or not rec.is_dir():
        row("recording", "`record_source` of a microphone that delivers nothing for 12 s",
            f"failed: {r.stderr[-160:]}", False)
        return
    import soundfile

    meta = json.loads((rec / "meta.json").read_text())
    wav, _ = soundfile.read(rec / "audio.wav", dtype="int16")
    values = wav.astype(np.int64)
    starts = np.r_[0, np.flatnonzero(np.diff(values)) + 1]
    first = {int(values[i]) - 1: int(i) for i in starts[::-1] if values[i] > 0}
    offs = [meta["audio_offset_s"] + first[n] / RATE - (written[n] - (PERIOD - 1) / RATE)
            for n in sorted(first) if n in written]
    base = offs[0]
    late = [n for n in sorted(first) if n in written and n > HANG_AT + 2]
    after = offs[sorted(n for n in first if n in written).index(late[0])] - base if late else float("nan")
    row("recording", "`record_source` of a microphone that delivers nothing for 12 s, 20 s in all",
        f"gap filled: {meta.get('audio_padded_samples', 0) / RATE:.2f} s of silence, audio_gaps "
        f"{len(meta.get('audio_gaps', []))}; the periods after it stored {after:+.3f} s from when "
        f"they were heard (was -12.0 s: 0 padded, a warning a block)",
        meta.get("audio_padded_samples", 0) >= 10 * RATE and abs(after) < 0.1 and "audio_jumps" not in meta)
    r, _ = _paced(tmp, "two", 0.0, """
        from sensekit.capture.devices import find_microphone
        from sensekit.errors import DeviceNotFoundError
        try:
            print("took", find_microphone("sensekitmic").name)
        except DeviceNotFoundError as exc:
            print("error:", exc)
    """, [], count=2)
    line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr[-160:]
    row("microphone", "`mic:sensekitmic`: a name part of two devices' names", line,
        line.startswith("error: microphone name 'sensekitmic' matches 2 devices"))


HUD = """
import json
from sensekit.app.host import AppHost, RunOptions
from sensekit.app.registry import load
from sensekit.capture.microphone import MicrophoneSource
src = MicrophoneSource(sample_rate=48000, max_queued_blocks=2, drop="newest")
src.open()
while src.stats()["dropped_blocks"] == 0:
    src.read(timeout=5)
src.close()
print(json.dumps({"line": AppHost(load("clapper"), src, RunOptions(headless=True)).hud.line(),
                  "dropped": src.stats()["dropped_blocks"]}))
"""


def _hud_row(tmp: Path, row: Row) -> None:
    from tests.capture.alsa_filemic import FileMic, known_samples

    r = FileMic(tmp / "hud", known_samples(48000), 48000).run(HUD, timeout=60)
    out = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else {"line": r.stderr[-120:]}
    row("microphone", "the status line (HUD, panel) of a live run whose microphone drops blocks (a 2-block queue)",
        out["line"], f"lost: {out.get('dropped')} dropped audio block" in out["line"])


def _recorder_rows(tmp: Path, row: Row) -> None:
    from sensekit.capture.base import AudioBlock
    from sensekit.capture.recording import Recorder
    from sensekit.capture.replay import ReplaySource
    from sensekit.cli.inspect import summary

    now = [1000.0]

    class HandClock(Recorder):
        """A recorder whose gap rule reads ``now`` (moved by hand below), not the machine's clock."""

        def _clock(self) -> float:
            return now[0]

    seen = WarningLines()
    logging.getLogger("sensekit").addHandler(seen)
    try:
        for name, gap_s, late_s in (("gap", 60.0, 60.0), ("jump", 3600.0, 0.0)):
            path = tmp / f"{name}.skrec"
            seen.lines.clear()
            with HandClock(path, audio=(1000, 1), block_size=100) as r:
                for k in range(10):
                    r.write(AudioBlock(k, k * 0.1, np.full(100, 0.25, np.float32), 1000))
                    now[0] += 0.1
                now[0] += late_s
                for k in range(10, 60):
                    r.write(AudioBlock(k, gap_s + k * 0.1, np.full(100, 0.5, np.float32), 1000))
                    now[0] += 0.1
            heard = np.concatenate([b.samples for b in ReplaySource(path) if isinstance(b, AudioBlock)])
            at = int(np.flatnonzero(heard == 0.5)[0])
            text, _ = summary(path)
            said = next((ln.split("- ", 1)[-1] for ln in text.splitlines()
                         if "silence fill" in ln or "not kept" in ln), "")
            if name == "gap":
                row("recording", "a microphone quiet for 60 s between two blocks (the recorder's clock moved 60 s)",
                    f"the block after it replays at {at / 1000:.3f} s (was 1.000 s: 0 samples padded); "
                    f"inspect: {said}", at == 61000 and "60.000 s of silence fills 1 gap" in said)
            else:
                warned = sum("audio jumps" in ln for ln in seen.lines)
                row("recording", "blocks stamped 1 h on after 1 s recorded (no live source can; a wrong `t`)",
                    f"not padded, {warned} warning(s) for 50 blocks (was 50), inspect: {said[:70]}",
                    warned == 1 and at == 1000 and "not kept" in said)
    finally:
        logging.getLogger("sensekit").removeHandler(seen)


def _clap_row(row: Row) -> None:
    """The bundled demo's audio with the blocks after its middle clap 20 s later (a consumer stalled
    20 s while the queue dropped all but its newest blocks): its claps after the gap."""
    from sensekit.audio.clap import ClapDetector
    from sensekit.capture.base import AudioBlock
    from sensekit.capture.replay import ReplaySource
    from sensekit.paths import recordings_dir

    blocks = [b for b in ReplaySource(recordings_dir() / "demo.skrec") if isinstance(b, AudioBlock)]

    def claps(shift: float, mid: int) -> list[float]:
        det = ClapDetector()
        return [c.t for k, b in enumerate(blocks)
                for c in det.feed(AudioBlock(b.index, b.t + (shift if k >= mid else 0.0), b.samples, b.rate))]

    whole = claps(0.0, 0)
    half = (whole[len(whole) // 2 - 1] + whole[len(whole) // 2]) / 2     # between two claps
    mid = next(k for k, b in enumerate(blocks) if b.t >= half)
    got = claps(20.0, mid)
    cut = blocks[mid].t
    want = [t if t < cut else t + 20.0 for t in whole]
    err = max((abs(a - b) for a, b in zip(got, want)), default=0.0) if len(got) == len(want) else float("inf")
    row("events", "the demo's audio with the blocks after its middle clap 20 s later (a 20 s stall, blocks dropped)",
        f"{len(got)} claps, {sum(t >= cut for t in whole)} after the gap, each within {err:.1e} s of its time "
        "(was 20 s early: the detector counted its own samples)", len(whole) >= 4 and err < 1e-6)


def mic_rows(tmp: Path, row: Row) -> None:
    from tests.capture.alsa_filemic import unavailable_reason

    _recorder_rows(tmp, row)
    _clap_row(row)
    reason = unavailable_reason()
    if reason is not None:
        row("microphone", "the paced ALSA fake microphone rows", f"skipped: {reason}", True)
        return
    _hud_row(tmp, row)
    _live_rows(tmp, row)
