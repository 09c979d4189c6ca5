"""A run stopped rather than ended still reports the clap it owes (issue 19's held close call): the
runner's ``stop()`` at ``run(max_items=...)``, at Ctrl-C / SIGTERM (``KeyboardInterrupt``), at an
app's ``--frames`` limit or Ctrl-C, and at the end of each pass of a looping source (the detector
finishes the pass, then starts a new stream). The clip is ``test_clap_finish``'s: cut 53 ms after the
peak of a close call still held when its last block is in."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sensekit.audio.clap import ClapDetector
from sensekit.audio.pipeline import AudioStage
from sensekit.capture.base import AudioBlock, Item
from sensekit.runner import Runner

from .test_clap_finish import THRESHOLD, cut  # noqa: F401 - the fixture
from .test_pipeline import ArraySource


class StoppedSource(ArraySource):
    """The cut's blocks; then Ctrl-C (``interrupt``) or nothing more for now (a stream still open)."""

    def __init__(self, x: np.ndarray, rate: int, *, interrupt: bool) -> None:
        super().__init__(x, rate, block=1024)
        self.interrupt = interrupt

    def read(self, timeout: float | None = None) -> Item | None:
        if self._i >= len(self.items):
            if self.interrupt:
                raise KeyboardInterrupt
            return None
        return super().read(timeout)


class LoopingSource(ArraySource):
    """The cut played ``passes`` times, times running on, ``loops`` counting the restarts (as a
    looping ``ReplaySource`` does)."""

    def __init__(self, x: np.ndarray, rate: int, passes: int) -> None:
        super().__init__(x, rate, block=1024)
        one, self.duration = self.items, len(x) / rate
        self.items = [AudioBlock(k * len(one) + b.index, k * self.duration + b.t, b.samples, rate)
                      for k in range(passes) for b in one]
        self.per_pass = len(one)

    @property
    def loops(self) -> int:
        return max(0, (self._i - 1) // self.per_pass)


def claps_of(runner: Runner) -> list[float]:
    seen: list[float] = []
    runner.dispatcher.on("clap", lambda e: seen.append(e.t))
    return seen


def stage() -> AudioStage:
    return AudioStage(clap=ClapDetector(threshold=THRESHOLD))


def test_events_stopped_by_max_items_prints_the_owed_clap(cut, tmp_path, capsys) -> None:  # noqa: F811
    import json

    import soundfile as sf

    from sensekit.capture.spec import open_source
    from sensekit.cli import main

    x, rate, t = cut
    wav = tmp_path / "cut.wav"
    sf.write(wav, x, rate, subtype="FLOAT")
    with open_source(str(wav)) as source:
        blocks = sum(1 for _ in source)
    args = ["events", str(wav), "--clap", "--set", f"clap.threshold={THRESHOLD}", "--jsonl"]
    assert main([*args, "--max-items", str(blocks)]) == 0           # every block, the end not read
    claps = [e["t"] for e in map(json.loads, capsys.readouterr().out.splitlines()) if e["event"] == "clap"]
    assert sum(abs(c - t) < 1e-4 for c in claps) == 1, (claps, t)


def test_a_run_in_pieces_is_one_stream_and_stop_owes_once(cut) -> None:  # noqa: F811
    """``run(max_items=...)`` is not a stop (a caller may go on): two pieces then the end give what one
    run gives; ``stop()`` after the end owes nothing."""
    x, rate, _ = cut
    whole = Runner(ArraySource(x, rate, block=1024), [stage()])
    one = claps_of(whole)
    whole.run()
    runner = Runner(ArraySource(x, rate, block=1024), [stage()])
    seen = claps_of(runner)
    runner.run(max_items=20)
    runner.run(max_items=20)
    runner.run()
    assert runner.ended and seen == one and runner.stop() == []


def test_a_run_stopped_by_ctrl_c_reports_the_owed_clap(cut) -> None:  # noqa: F811
    x, rate, t = cut
    source = StoppedSource(x, rate, interrupt=True)
    runner = Runner(source, [stage()])
    seen = claps_of(runner)
    with pytest.raises(KeyboardInterrupt):
        runner.run()
    assert sum(abs(c - t) < 1e-9 for c in seen) == 1, (seen, t)


class Owing(ClapDetector):
    """Records what each ``finish()`` returned."""

    def __init__(self, **kw: Any) -> None:
        self.owed: list[list[float]] = []
        super().__init__(**kw)

    def finish(self) -> list[Any]:
        got = super().finish()
        self.owed.append([c.t for c in got])
        return got


def test_each_pass_of_a_looping_source_finishes_and_reports_its_owed_clap(cut) -> None:  # noqa: F811
    x, rate, t = cut
    once = Runner(ArraySource(x, rate, block=1024), [stage()])
    one = claps_of(once)
    once.run()
    source = LoopingSource(x, rate, passes=3)
    det = Owing(threshold=THRESHOLD)
    runner = Runner(source, [AudioStage(clap=det)])
    seen = claps_of(runner)
    runner.run()
    # each pass a new stream, finished at its end: its held close call decided then, at its own time
    assert len(det.owed) == 3, det.owed
    for k, owed in enumerate(det.owed):
        assert owed == pytest.approx([t + k * source.duration], abs=1e-6), (k, det.owed)
    assert seen == pytest.approx([c + k * source.duration for k in range(3) for c in one], abs=1e-6)


def test_a_looping_replay_counts_its_passes() -> None:
    from sensekit.app.registry import resolve
    from sensekit.app.sources import bundled_source

    try:
        source = bundled_source(resolve("clapper"), loop=True)
    except Exception as exc:       # noqa: BLE001 - the bundled recording is generated at install
        pytest.skip(f"bundled recording missing: {exc}")
    with source:
        assert source.loops == 0
        last = -1.0
        while (item := source.read()) is not None and source.loops == 0:
            last = item.t
        assert source.loops == 1 and item is not None and item.t > last


@pytest.mark.parametrize("interrupt", [True, False], ids=["ctrl-c", "frames"])
def test_the_clapper_app_stopped_hears_the_owed_clap(cut, interrupt: bool) -> None:  # noqa: F811
    from sensekit.app.host import AppHost, RunOptions
    from sensekit.app.registry import load

    x, rate, t = cut
    source = StoppedSource(x, rate, interrupt=interrupt)
    app = load("clapper")
    frames = int(np.ceil(len(x) / rate / app.step_s)) + 5          # past the last block
    options: dict[str, Any] = {} if interrupt else {"frames": frames}
    host = AppHost(app, source, RunOptions(headless=True, hud=False, **options))
    audio = next(s for s in host.runner.stages if isinstance(s, AudioStage))
    assert audio.clap is not None
    audio.clap.apply_now(threshold=THRESHOLD)
    result = host.run()
    assert result.interrupted is interrupt and not host.runner.ended
    claps = list(host.app.claps)
    assert sum(abs(c - t) < 1e-4 for c in claps) == 1, (claps, t)


def test_sensekit_events_stopped_by_sigterm_prints_the_owed_clap(cut, monkeypatch, capsys) -> None:  # noqa: F811
    """SIGTERM right after the last block (as ``systemctl stop`` would): the clap still held is printed
    before the command stops (status 130). Without the command's handler the signal would end the test
    run; this test's own handler turns that into a failure."""
    import json
    import os
    import signal

    from sensekit.capture import spec
    from sensekit.cli import main

    x, rate, t = cut

    class Terminated(ArraySource):
        def read(self, timeout: float | None = None) -> Item | None:
            if self._i >= len(self.items):
                os.kill(os.getpid(), signal.SIGTERM)
                return None
            return super().read(timeout)

    def unhandled(signum: int, frame: Any) -> None:
        raise AssertionError("SIGTERM reached the default handler: `sensekit events` does not stop on it")

    monkeypatch.setattr(spec, "open_source", lambda *a, **k: Terminated(x, rate, block=1024))
    old = signal.signal(signal.SIGTERM, unhandled)
    try:
        code = main(["events", "clip.wav", "--clap", "--set", f"clap.threshold={THRESHOLD}", "--jsonl"])
    finally:
        signal.signal(signal.SIGTERM, old)
    assert code == 130
    claps = [e["t"] for e in map(json.loads, capsys.readouterr().out.splitlines()) if e["event"] == "clap"]
    assert sum(abs(c - t) < 1e-4 for c in claps) == 1, (claps, t)
