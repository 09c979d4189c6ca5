"""OSC control as a hostile network or a broken controller uses it, against a running show.

The run is the one ``sensekit events`` builds (``events.build``) on the bundled demo recording,
driven item by item in this thread; the control server is a real ``OscControl`` on a real UDP
port of 127.0.0.1, sent to by a plain socket.

- A value the settings table allows but the running stage cannot take (a pitch range above
  what the source's rate holds, a word the recogniser does not know) is refused at the door in
  one line and counted in ``rejected``; it used to be queued and stop the run on the run's
  thread at its next block.

Every wait is bounded (``WAIT_S``); a server that stops answering fails the test.
"""
from __future__ import annotations

import argparse
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pythonosc.osc_message_builder import OscMessageBuilder

from sensekit.osc import OscControl, setting_address

WAIT_S = 5.0


def _wait(predicate: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"the OSC server did not answer within {WAIT_S} s: {what}")
        time.sleep(0.002)


def _message(address: str, *args: Any) -> bytes:
    b = OscMessageBuilder(address)
    for a in args:
        b.add_arg(a)
    return bytes(b.build().dgram)


class Show:
    """A run of ``sensekit events`` on the demo recording (looped) with OSC control."""

    def __init__(self, demo: Path, argv: list[str]) -> None:
        from sensekit.capture.spec import open_source
        from sensekit.cli import events
        from sensekit.runner import Runner

        parser = argparse.ArgumentParser()
        providers = events._providers()
        for provider in providers:
            provider.add_arguments(parser)
        args = parser.parse_args(argv)
        self.source = open_source(f"replay:{demo}", loop=True)
        self.source.__enter__()
        self.stages, self.tuning = events.build(args, self.source, providers=providers)
        self.runner = Runner(self.source, self.stages)
        self.runner.dispatcher.on("*", lambda e: None)           # someone listens: stages run
        self.control = OscControl("127.0.0.1", 0, tuning=self.tuning).start()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.runner.run(max_items=10)

    def counted(self) -> int:
        c = self.control
        return c.accepted + c.rejected + c.unused + c.malformed + c.oversized

    def send(self, dgram: bytes) -> None:
        self.sock.sendto(dgram, ("127.0.0.1", self.control.port))

    def send_and_wait(self, dgram: bytes, what: str) -> None:
        before = self.counted()
        self.send(dgram)
        _wait(lambda: self.counted() > before, what)

    def close(self) -> None:
        self.sock.close()
        self.control.close()
        self.source.__exit__(None, None, None)


@pytest.fixture
def demo(recordings_dir: Path) -> Path:
    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated (python -m sensekit.synth)")
    return demo


@pytest.fixture
def show(demo: Path) -> Iterator[Callable[[list[str]], Show]]:
    made: list[Show] = []

    def make(argv: list[str]) -> Show:
        made.append(Show(demo, argv))
        return made[-1]

    yield make
    for s in made:
        s.close()


def _voice_ready() -> bool:
    try:
        from sensekit.audio.words import require_voice

        require_voice()
    except Exception:
        return False
    return True


# --- values the table allows but the running stage cannot take ---------------------------------

def test_a_pitch_range_above_the_sources_rate_is_refused_at_the_door_and_the_run_goes_on(show, caplog):
    """The demo's audio is 16 kHz: YIN on its 8 kHz decimation hears up to 2,000 Hz, while the
    table allows ``pitch.fmax`` up to 4,000 (a 48 kHz source would not hold that either). One
    ``/sensekit/set/pitch/fmax 3000`` used to be accepted and end the run at its next block
    (`sensekit: error: `fmax` 3000 Hz is too high for rate 16000 Hz`, exit 2)."""
    s = show(["--pitch"])
    pitch = next(t for t in s.tuning.tunables() if type(t).SETTINGS.section == "pitch")
    with caplog.at_level("WARNING", logger="sensekit.osc"):
        s.send_and_wait(_message(setting_address("pitch.fmax"), 3000.0), "pitch.fmax 3000")
        s.runner.run(max_items=40)                      # raised ConfigError here before
    assert s.control.rejected == 1 and s.control.accepted == 0
    assert pitch.fmax == 900.0
    warning = [r.getMessage() for r in caplog.records if "pitch/fmax" in r.getMessage()]
    assert warning == ["OSC: ignored /sensekit/set/pitch/fmax 3000.0: `pitch.fmax` 3000 Hz is too high "
                       "for this source's rate 16000 Hz (at most 2000 Hz)"]
    s.send_and_wait(_message(setting_address("pitch.fmax"), 1500.0), "pitch.fmax 1500")
    s.runner.run(max_items=10)
    assert pitch.fmax == 1500.0 and s.control.accepted == 1


@pytest.mark.skipif(not _voice_ready(), reason="the voice extra is not installed")
def test_a_word_the_recogniser_does_not_know_is_refused_at_the_door_and_the_run_goes_on(show, caplog):
    """``/sensekit/set/voice/words "left,qzxqzx"`` (a valid list of words to the table) used to be
    accepted and end the run at its next audio block, when the spotter was rebuilt."""
    s = show(["--words", "left"])
    voice = next(t for t in s.tuning.tunables() if type(t).SETTINGS.section == "voice")
    with caplog.at_level("WARNING", logger="sensekit.osc"):
        s.send_and_wait(_message(setting_address("voice.words"), "left,qzxqzx"), "voice.words")
        s.runner.run(max_items=40)                      # raised ConfigError here before
    assert s.control.rejected == 1 and voice.words == ("left",)
    assert any("not in the recogniser's English dictionary: qzxqzx" in r.getMessage()
               for r in caplog.records)
    s.send_and_wait(_message(setting_address("voice.words"), "left,right"), "voice.words ok")
    s.runner.run(max_items=10)
    assert voice.words == ("left", "right") and s.control.accepted == 1


@pytest.mark.parametrize("picked_by", ["model", "exact"])
def test_switching_a_clicked_target_to_hsv_goes_on_tracking_its_colour(show, picked_by):
    """A click tracked by ``model`` (or ``exact``), then ``/sensekit/set/tracker/method hsv``: the
    tracker had no hsv target (only a colour given or an hsv pick made one) and the run ended
    at the next frame on an ``AssertionError``. Now hsv goes on from the clicked colour, as if
    that colour had been given: the same box as a run tracking the ball's colour from the start."""
    by_color = show(["--track-color", "#eb2d14"])
    ball = by_color.stages[0].tracker.last
    assert ball is not None and ball.found
    s = show(["--track-color", f"{ball.cx:.0f},{ball.cy:.0f}", "--track-method", picked_by])
    tracker = s.stages[0].tracker
    assert tracker.method_in_use == picked_by and tracker.last.found
    s.send_and_wait(_message(setting_address("tracker.method"), "hsv"), "tracker.method hsv")
    s.runner.run(max_items=40)                      # AssertionError here before
    by_color.runner.run(max_items=40)
    assert s.control.accepted == 1 and tracker.method_in_use == "hsv"
    assert tracker.last.found and by_color.stages[0].tracker.last.found
    assert tracker.last.box == pytest.approx(by_color.stages[0].tracker.last.box, abs=2)
