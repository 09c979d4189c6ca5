"""The runner: one loop for live and replayed sources, lazy stages, fixed-step pumping."""
from __future__ import annotations

import numpy as np

from sensekit.capture.base import AudioBlock, Source, VideoFrame, merge_by_time
from sensekit.events import Clap, Dispatcher, Motion
from sensekit.runner import RecordStage, Runner, checksum


class ListSource(Source):
    """A deterministic source made of a list of items."""
    kind = "list"
    has_video = has_audio = True

    def __init__(self, items):
        self.items = list(items)

    def read(self, timeout=None):
        if not self.items:
            raise EOFError
        return self.items.pop(0)


def _items():
    frames = [VideoFrame(i, i / 10, np.full((4, 6, 3), i, np.uint8)) for i in range(5)]
    blocks = [AudioBlock(i, i * 0.032, np.full(512, i / 10, np.float32), 16000) for i in range(10)]
    return list(merge_by_time(frames, blocks))


class CountingStage:
    def __init__(self, consumes, emits, make):
        self.consumes, self.emits, self.make, self.calls = consumes, frozenset(emits), make, 0

    def process(self, item):
        self.calls += 1
        return [self.make(item)]


def test_merge_by_time_interleaves_and_puts_video_first_on_ties():
    items = _items()
    ts = [it.t for it in items]
    assert ts == sorted(ts)
    tie = [type(it).__name__ for it in items if it.t == 0.0]
    assert tie == ["VideoFrame", "AudioBlock"]


def test_lazy_stages_run_only_when_someone_listens():
    motion = CountingStage("video", {"motion"}, lambda it: Motion(t=it.t))
    clap = CountingStage("audio", {"clap"}, lambda it: Clap(t=it.t))
    d = Dispatcher()
    got = []
    d.on("clap", got.append)
    stats = Runner(ListSource(_items()), [motion, clap], d).run()
    assert motion.calls == 0, "nobody listens to motion: it must not run"
    assert clap.calls == 10 and len(got) == 10
    assert stats.frames == 5 and stats.blocks == 10 and stats.event_counts == {"clap": 10}


def test_frame_transforms_apply_before_stages():
    seen = []
    stage = CountingStage("video", {"motion"}, lambda it: seen.append(it.image[0, 0, 0]) or Motion(t=it.t))
    d = Dispatcher()
    d.on("motion", lambda e: None)
    Runner(ListSource(_items()), [stage], d, frame_transforms=[lambda im: im + 1]).run()
    assert seen == [1, 2, 3, 4, 5]


def test_pump_processes_up_to_the_simulation_time_only():
    d = Dispatcher()
    runner = Runner(ListSource(_items()), [RecordStage()], d)
    d.on("*", lambda e: None)
    runner.pump(until_t=0.2)
    assert runner.latest_frame.index == 2 and runner.latest_block.t <= 0.2
    n_before = runner.stats.frames + runner.stats.blocks
    runner.pump(until_t=0.2)
    assert runner.stats.frames + runner.stats.blocks == n_before, "same time, nothing new"
    runner.pump(until_t=10.0)
    assert runner.ended and runner.stats.frames == 5 and runner.stats.blocks == 10


def test_record_stage_checksums_are_stable():
    a = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
    assert checksum(a) == checksum(a.copy()) != checksum(a[::-1].copy())
    ev = RecordStage().process(VideoFrame(3, 0.3, a))[0]
    assert (ev.name, ev.index, ev.width, ev.height, ev.checksum) == ("frame", 3, 2, 2, checksum(a))


class ListeningStage(CountingStage):
    """Records every ``listen(wanted)`` call the runner makes."""

    def __init__(self, consumes, emits, make, always_run=False):
        super().__init__(consumes, emits, make)
        self.always_run = always_run
        self.heard: list[tuple[int, frozenset]] = []

    def listen(self, wanted):
        self.heard.append((self.calls, frozenset(wanted)))


def test_runner_tells_stages_who_listens_before_the_first_item_and_on_every_change():
    stage = ListeningStage("audio", {"clap", "pitch"}, lambda it: Clap(t=it.t))
    d = Dispatcher()
    runner = Runner(ListSource(_items()), [stage], d)
    d.on("clap", lambda e: None)                  # subscribed after the runner was built
    runner.process(runner.source.read())
    assert stage.heard == [(0, frozenset({"clap"}))]      # told before it saw anything
    for _ in range(3):
        runner.process(runner.source.read())
    assert len(stage.heard) == 1                   # nothing changed: not told again
    handler = d.on("pitch", lambda e: None)
    runner.process(runner.source.read())
    d.off("pitch", handler)
    runner.process(runner.source.read())
    assert [w for _, w in stage.heard] == [frozenset({"clap"}), frozenset({"clap", "pitch"}),
                                         frozenset({"clap"})]


def test_wildcard_and_eager_runners_want_everything_always_run_stages_hear_the_truth():
    d = Dispatcher()
    d.on("*", lambda e: None)
    a = ListeningStage("audio", {"clap", "pitch"}, lambda it: Clap(t=it.t))
    Runner(ListSource(_items()), [a], d).run(max_items=1)
    assert a.heard[-1][1] == {"clap", "pitch"}
    b = ListeningStage("audio", {"clap", "pitch"}, lambda it: Clap(t=it.t), always_run=True)
    Runner(ListSource(_items()), [b], Dispatcher()).run(max_items=1)
    assert b.heard[-1][1] == frozenset(), "nobody listens; the stage decides what it keeps running"
    c = ListeningStage("audio", {"clap", "pitch"}, lambda it: Clap(t=it.t))
    Runner(ListSource(_items()), [c], Dispatcher(), lazy=False).run(max_items=1)
    assert c.heard[-1][1] == {"clap", "pitch"}


def test_dispatcher_version_and_wanted():
    d = Dispatcher()
    v0 = d.version
    h = d.on("clap", lambda e: None)
    assert d.version == v0 + 1 and d.wanted({"clap", "pitch"}) == {"clap"}
    d.off("clap", h)
    assert d.version == v0 + 2 and d.wanted({"clap", "pitch"}) == frozenset()


class FinishingStage(CountingStage):
    """Holds one clap until the end of the source (like the voice stage's open segment)."""

    def __init__(self) -> None:
        super().__init__("audio", ["clap"], lambda item: Clap(t=item.t, strength=0.5))
        self.finished = 0

    def finish(self):
        self.finished += 1
        return [Clap(t=9.0, strength=1.0)]


def test_run_and_pump_call_finish_once_at_the_end_and_dispatch_its_events():
    for drive in ("run", "pump"):
        stage = FinishingStage()
        runner = Runner(ListSource(_items()), [stage])
        got = []
        runner.dispatcher.on("clap", got.append)
        if drive == "run":
            runner.run()
        else:
            while not runner.ended:
                runner.pump(until_t=100.0)
        assert stage.finished == 1 and runner.ended, drive
        assert len(got) == 11 and got[-1] == Clap(t=9.0, strength=1.0), drive     # 10 blocks, then finish
        assert runner.stats.event_counts["clap"] == 11 and stage.calls == 10, drive
    quiet = FinishingStage()                      # nobody listens: a lazy stage is not finished
    Runner(ListSource(_items()), [quiet]).run()
    assert quiet.finished == 0


def test_a_detector_or_a_class_given_as_a_stage_is_named_before_the_run():
    """Runner(source, [ClapDetector()]) ended in "AttributeError: 'ClapDetector' object has no
    attribute 'consumes'" from inside the run, and Runner(source, [AudioStage]) in "TypeError:
    AudioStage.listen() missing 1 required positional argument"."""
    import pytest

    from sensekit.audio.clap import ClapDetector
    from sensekit.audio.pipeline import AudioStage
    from sensekit.errors import ConfigError

    with pytest.raises(ConfigError, match=r"^stage 0 of the Runner is a ClapDetector, not a stage \(it has no "
                                          r"consumes, emits\): a detector goes inside its stage, "
                                          r"e\.g\. AudioStage\(clap=ClapDetector\(\)\)"):
        Runner(ListSource(_items()), [ClapDetector()])
    with pytest.raises(ConfigError, match=r"^stage 1 of the Runner is the class AudioStage, not an instance: "
                                          r"write AudioStage\(\.\.\.\)$"):
        Runner(ListSource(_items()), [RecordStage(), AudioStage])

    class Odd(RecordStage):
        consumes = "midi"  # type: ignore[assignment]

    with pytest.raises(ConfigError, match=r"consumes 'midi'; a stage consumes one of video, audio, both"):
        Runner(ListSource(_items()), [Odd()])


def test_a_spec_or_anything_else_given_as_the_source_is_named():
    """Runner("demo", ...) ended in "AttributeError: 'str' object has no attribute 'is_live'"."""
    import pytest

    from sensekit.errors import ConfigError

    with pytest.raises(ConfigError, match=r"^the Runner takes an open source, not the spec 'demo': "
                                          r"with open_source\('demo'\) as source: Runner\(source, stages, "):
        Runner("demo", [RecordStage()])
    with pytest.raises(ConfigError, match=r"^the Runner takes a source \(open_source\(spec\) gives one\), got a int$"):
        Runner(3, [RecordStage()])
