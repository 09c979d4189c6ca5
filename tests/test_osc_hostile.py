"""OSC control as a hostile network or a broken controller uses it, against a running show.

The run is the one ``sensekit events`` builds (``events.build``) on the bundled demo recording,
driven item by item in this thread; the control server is a real ``OscControl`` on a real UDP
port of 127.0.0.1, sent to by a plain socket.

- A value the settings table allows but the running stage cannot take (a pitch range above
  what the source's rate holds, a word the recogniser does not know) is refused at the door in
  one line and counted in ``rejected``; it used to be queued and stop the run on the run's
  thread at its next block.
- After any bad datagram (hypothesis, derandomized: valid packets with bytes flipped, cut or
  added, wrong type tags, huge strings and blobs, bundles deep and wide, timetags in the far
  past and future, NaN, inf and out-of-range numbers for every setting of the run in every
  numeric type, addresses with odd characters) the server still answers a valid setting, the
  run goes on, every setting of the run holds a value its declaration (and its group's rule)
  allows, and every log line the datagram caused is one line. Values anywhere in a setting's
  declared range are sent too: the running stages must take them or refuse them at the door.
- Every setting of two runs (tracking a colour; a click, with background motion) sent at each
  end of its range and each choice: taken or refused, the run goes on (deterministic: it fails
  on both findings above when their fixes are taken out).

Every wait is bounded (``tests.osc_show.WAIT_S``); a server that stops answering fails the test.
"""
from __future__ import annotations

import logging
import math
import random
import socket
import struct
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sensekit.audio.pitch import PitchTracker
from sensekit.audio.voice import VoiceStage
from sensekit.osc import setting_address
from sensekit.settings.declare import REGISTRY, Setting
from sensekit.settings.registry import lookup
from tests.osc_show import Show, osc_message, wait_until

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

def test_a_pitch_range_above_the_sources_rate_is_refused_at_the_door_and_the_run_goes_on(
        show: Callable[[list[str]], Show], caplog: pytest.LogCaptureFixture) -> None:
    """The demo's audio is 16 kHz: YIN on its 8 kHz decimation hears up to 2,000 Hz, while the
    table allows ``pitch.fmax`` up to 4,000 (a 48 kHz source would not hold that either). One
    ``/sensekit/set/pitch/fmax 3000`` used to be accepted and end the run at its next block
    (`sensekit: error: `fmax` 3000 Hz is too high for rate 16000 Hz`, exit 2)."""
    s = show(["--pitch"])
    pitch = next(t for t in s.tuning.tunables() if type(t).SETTINGS.section == "pitch")
    assert isinstance(pitch, PitchTracker)
    with caplog.at_level("WARNING", logger="sensekit.osc"):
        s.send_and_wait(osc_message(setting_address("pitch.fmax"), 3000.0), "pitch.fmax 3000")
        s.runner.run(max_items=40)                      # raised ConfigError here before
    assert s.control.rejected == 1 and s.control.accepted == 0
    assert pitch.fmax == 900.0
    warning = [r.getMessage() for r in caplog.records if "pitch/fmax" in r.getMessage()]
    assert warning == ["OSC: ignored /sensekit/set/pitch/fmax 3000.0: `pitch.fmax` 3000 Hz is too high "
                       "for this source's rate 16000 Hz (at most 2000 Hz)"]
    s.send_and_wait(osc_message(setting_address("pitch.fmax"), 1500.0), "pitch.fmax 1500")
    s.runner.run(max_items=10)
    assert pitch.fmax == 1500.0 and s.control.accepted == 1


@pytest.mark.skipif(not _voice_ready(), reason="the voice extra is not installed")
def test_a_word_the_recogniser_does_not_know_is_refused_at_the_door_and_the_run_goes_on(
        show: Callable[[list[str]], Show], caplog: pytest.LogCaptureFixture) -> None:
    """``/sensekit/set/voice/words "left,qzxqzx"`` (a valid list of words to the table) used to be
    accepted and end the run at its next audio block, when the spotter was rebuilt."""
    s = show(["--words", "left"])
    voice = next(t for t in s.tuning.tunables() if type(t).SETTINGS.section == "voice")
    assert isinstance(voice, VoiceStage)
    with caplog.at_level("WARNING", logger="sensekit.osc"):
        s.send_and_wait(osc_message(setting_address("voice.words"), "left,qzxqzx"), "voice.words")
        s.runner.run(max_items=40)                      # raised ConfigError here before
    assert s.control.rejected == 1 and voice.words == ("left",)
    assert any("not in the recogniser's English dictionary: qzxqzx" in r.getMessage()
               for r in caplog.records)
    s.send_and_wait(osc_message(setting_address("voice.words"), "left,right"), "voice.words ok")
    s.runner.run(max_items=10)
    assert tuple(voice.words) == ("left", "right") and s.control.accepted == 1   # (a new read: mypy keeps ("left",))


@pytest.mark.parametrize("picked_by", ["model", "exact"])
def test_switching_a_clicked_target_to_hsv_goes_on_tracking_its_colour(show: Callable[[list[str]], Show],
                                                                     picked_by: str) -> None:
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
    s.send_and_wait(osc_message(setting_address("tracker.method"), "hsv"), "tracker.method hsv")
    s.runner.run(max_items=40)                      # AssertionError here before
    by_color.runner.run(max_items=40)
    assert s.control.accepted == 1 and tracker.method_in_use == "hsv"
    assert tracker.last.found and by_color.stages[0].tracker.last.found
    assert tracker.last.box == pytest.approx(by_color.stages[0].tracker.last.box, abs=2)


def test_the_first_unknown_key_leaves_the_doors_answering(demo: Path) -> None:
    """The first unknown key a run was sent (a typo on a controller) completed the settings
    table on the door's thread, importing the apps: 0.6-1 s of CPU, and OSC's pace then kept
    the door deaf ~9 s (the next valid setting applied 9.1 s later); the panel answered it after
    1.6 s. The doors now complete the table when they open. A fresh process (the table is
    per process), the real command."""
    import json
    import subprocess
    import sys
    import threading
    import urllib.error
    import urllib.request

    cmd = [sys.executable, "-m", "sensekit", "events", str(demo), "--loop", "--realtime", "--activity",
           "--osc-control", "0", "--panel", "127.0.0.1:0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[tuple[float, str]] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append((time.monotonic(), line.rstrip()))

    threading.Thread(target=read, daemon=True).start()
    try:
        deadline = time.monotonic() + 60
        while not any(line.startswith("panel: http") for _, line in lines):
            assert proc.poll() is None and time.monotonic() < deadline, lines
            time.sleep(0.05)
        osc_port = int(next(line for _, line in lines if "listening for settings" in line).rsplit(":", 1)[1])
        url = next(line for _, line in lines if line.startswith("panel: http")).split(" ", 1)[1].rstrip("/")
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sent = time.monotonic()
        sock.sendto(osc_message("/sensekit/set/motion/still_after_framez", 5), ("127.0.0.1", osc_port))
        sock.sendto(osc_message(setting_address("activity.silence_level"), 31.0), ("127.0.0.1", osc_port))
        sock.close()
        while not any("activity.silence_level=31.0" in line for _, line in lines):
            assert time.monotonic() < sent + 30, lines
            time.sleep(0.01)

        request = urllib.request.Request(f"{url}/api/set", method="POST",
                                         data=json.dumps({"values": {"activity.silence_levels": 30}}).encode(),
                                         headers={"Content-Type": "application/json", "Origin": url})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 400 and b"unknown setting" in refused.value.read()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


UNKNOWN_KEY_IMPORTS = """
import sys
from sensekit.audio.activity import ActivityDetector
from sensekit.errors import ConfigError
from sensekit.osc import OscControl
from sensekit.panel.control import PanelControl
from sensekit.settings import Tuning
from sensekit.settings.registry import lookup

detector = ActivityDetector()
tuning = Tuning(lambda: [detector])
doors = sys.argv[1] == "open"
if doors:
    control = OscControl("127.0.0.1", 0, tuning=tuning)
    panel = PanelControl(lambda: [detector], tuning)
before = set(sys.modules)
if doors:
    control.handle("/sensekit/set/motion/still_after_framez", [5])
try:
    lookup("activity.silence_levels")                 # what the panel's /api/set looks up
except ConfigError:
    pass
print(len(set(sys.modules) - before))
"""


def test_an_unknown_key_at_an_open_door_imports_nothing() -> None:
    """The cause of the deaf door above, exactly: once the OSC and panel doors are open, an
    unknown key is looked up without importing a module (the table was completed when they
    opened); a fresh process, since the table is per process. Without the doors the same
    lookups import the apps (~200 modules): the measure can tell."""
    import subprocess
    import sys

    def new_modules(doors: str) -> int:
        r = subprocess.run([sys.executable, "-c", UNKNOWN_KEY_IMPORTS, doors], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr[-2000:]
        return int(r.stdout.split()[-1])

    assert new_modules("open") == 0
    assert new_modules("closed") > 0


# --- any bad datagram, then a valid one --------------------------------------------------------

#: the run the property test drives: every audio and vision stage of the core install
BROAD_RUN = ["--track-color", "#eb2d14", "--motion", "--blobs", "--edges", "--activity", "--clap",
             "--pattern", "3", "--pitch", "--level"]
#: the valid setting sent after each bad datagram: one no cross-setting rule can refuse (an
#: in-range `activity.off_level` sent before made a silence level below it invalid)
PROBE_KEY = "audio.gain"
CASES = 300


def _pad(b: bytes) -> bytes:
    return b + b"\0" * (4 - len(b) % 4)                       # NUL-terminated, 4-byte aligned


def _osc_message(address: bytes, tags: bytes, payload: bytes) -> bytes:
    return _pad(address) + _pad(b"," + tags) + payload


def _osc_bundle(ntp: int, elements: list[bytes]) -> bytes:
    return b"#bundle\0" + struct.pack(">Q", ntp) + b"".join(struct.pack(">i", len(e)) + e for e in elements)


def _odd_numbers() -> list[float]:
    return [math.nan, math.inf, -math.inf, -0.0, 5e-324, 1e308, -1e308, 3.4e38, 2.0 ** 31, 2.0 ** 63, 1e-45]


def _number_args(rng: random.Random) -> tuple[bytes, bytes]:
    """One numeric argument in a random OSC type, from values a broken controller sends."""
    kind = rng.choice("ifdhTFNIs")
    if kind == "i":
        return b"i", struct.pack(">i", rng.choice([-(2 ** 31), 2 ** 31 - 1, -1, 0, 1, 256, 65536]))
    if kind == "h":
        return b"h", struct.pack(">q", rng.choice([-(2 ** 63), 2 ** 63 - 1, 2 ** 53 + 1, -1]))
    if kind in "fd":
        v = rng.choice(_odd_numbers())
        if kind == "f":
            return b"f", (struct.pack(">f", v) if abs(v) <= 3.4e38 or not math.isfinite(v)
                          else struct.pack(">f", math.copysign(math.inf, v)))
        return b"d", struct.pack(">d", v)
    if kind == "s":
        text = rng.choice(["nan", "inf", "-inf", "1e309", "0x7fffffffffffffff", "1" * 45, " 3 ", "", "none",
                           "#zzzzzz", "a=0,0,1,1;" * 70, "left," * 300, "\u202e1", "1_000"])
        return b"s", _pad(text.encode())
    return kind.encode(), b""


def _setting_message(rng: random.Random, key: str) -> bytes:
    tags, payload = _number_args(rng)
    return _osc_message(setting_address(key).encode(), tags, payload)


def _odd_address(rng: random.Random) -> bytes:
    return rng.choice([
        b"/sensekit/set/activity/silence_level/extra", b"/sensekit/set//silence_level", b"/sensekit/set/",
        b"/sensekit/set/*/threshold", b"/sensekit/set/activity/silence_level?", b"/sensekit/set/{a,b}/c",
        b"/sensekit/set/../activity/silence_level", "/sensekit/set/activit\u00e9/x".encode(),
        "/sensekit/set/\u202eactivity/x".encode(), "/\U0001f600".encode(), b"/sensekit/set/a\x7fb/c",
        b"/" + b"a" * 4000, b"//", b"/", b"/sensekit/preset", b"/sensekit/pause", b"/sensekit/set/pitch/fmax",
        b"/sensekit/set/motion/zones", b"/sensekit/set/tracker/method",
    ])


def _mutated(rng: random.Random, keys: list[str]) -> bytes:
    """A valid setting with 1-8 bits flipped."""
    d = bytearray(_setting_message(rng, rng.choice(keys)))
    for _ in range(rng.choice([1, 1, 2, 8])):
        d[rng.randrange(len(d))] ^= 1 << rng.randrange(8)
    return bytes(d)


def _cut_or_grown(rng: random.Random, keys: list[str]) -> bytes:
    d = _setting_message(rng, rng.choice(keys))
    return d[:rng.randrange(len(d))] if rng.random() < 0.5 else d + bytes(rng.randrange(1, 64))


def _wrong_tags(rng: random.Random, keys: list[str]) -> bytes:
    tags = bytes(rng.choice(b"ifsbhdtcrmTFNI[]XZ,") for _ in range(rng.randrange(0, 40)))
    payload = bytes(rng.randrange(256) for _ in range(4 * rng.randrange(0, 16)))
    return _osc_message(setting_address(rng.choice(keys)).encode(), tags, payload)


def _huge(rng: random.Random, keys: list[str]) -> bytes:
    """A string or a blob of 1,000-60,000 bytes (or a blob size that lies)."""
    n = rng.choice([1000, 4000, 4084, 5000, 60000])
    address = setting_address(rng.choice(keys)).encode()
    if rng.random() < 0.5:
        return _osc_message(address, b"s", _pad(b"x" * n))
    size = rng.choice([n, -n, 2 ** 31 - 1])
    return _osc_message(address, b"b", struct.pack(">i", size) + bytes(min(n, 4000)))


def _deep(rng: random.Random, keys: list[str]) -> bytes:
    d = _setting_message(rng, PROBE_KEY)
    for _ in range(rng.randrange(1, 14)):
        d = _osc_bundle(rng.choice([0, 1, 2 ** 64 - 1]), [d])
    return d


def _wide(rng: random.Random, keys: list[str]) -> bytes:
    msgs: list[bytes] = []
    for _ in range(rng.choice([2, 20, 200, 1100])):
        m = _setting_message(rng, rng.choice(keys))
        if sum(len(e) + 4 for e in msgs) + len(m) + 24 > 65000:        # one UDP datagram
            break
        msgs.append(m)
    return _osc_bundle(1, msgs)


def _far_timetag(rng: random.Random, keys: list[str]) -> bytes:
    ntp = rng.choice([0, 1, 2, 2 ** 32, 2 ** 63, 2 ** 64 - 1])
    return _osc_bundle(ntp, [_setting_message(rng, rng.choice(keys))])


def _odd_addressed(rng: random.Random, keys: list[str]) -> bytes:
    return _osc_message(_odd_address(rng), *_number_args(rng))


def _in_range(rng: random.Random, keys: list[str]) -> bytes:
    """A value its declaration allows, anywhere in the range (what a fader or a script sends):
    the running stage must take it, or refuse it at the door."""
    st_ = lookup(rng.choice(keys))
    address = setting_address(st_.key).encode()
    if st_.kind in ("float", "int") and st_.lo is not None and st_.hi is not None:
        v = rng.uniform(st_.lo, st_.hi) if rng.random() < 0.8 else rng.choice([st_.lo, st_.hi])
        if st_.kind == "int" and abs(v) < 2 ** 31:
            return _osc_message(address, b"i", struct.pack(">i", round(v)))
        return _osc_message(address, b"f", struct.pack(">f", v))
    if st_.kind == "bool":
        return _osc_message(address, rng.choice([b"T", b"F"]), b"")
    text = {"choice": lambda: rng.choice(st_.choices or ("",)),
            "color": lambda: f"#{rng.randrange(1 << 24):06x}",
            "zones": lambda: ";".join(f"z{i}={rng.random() / 2:.3f},{rng.random() / 2:.3f},0.2,0.3"
                                      for i in range(rng.randrange(0, 5))) or "none"}.get(st_.kind, lambda: "none")()
    return _osc_message(address, b"s", _pad(text.encode()))


_FAMILIES = (_in_range, _in_range, _mutated, _cut_or_grown, _wrong_tags, _huge, _deep, _wide, _far_timetag,
             _odd_addressed)


def _bad_datagram(seed: int, keys: list[str]) -> bytes:
    """One hostile datagram, drawn from ``seed`` (see the module docstring)."""
    rng = random.Random(seed)
    return rng.choice(_FAMILIES)(rng, keys)


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def _assert_valid_settings(values: dict[str, Any]) -> None:
    """Every value is one its declaration allows (re-checking it gives it back), and each
    group's cross-setting rule holds."""
    by_section: dict[str, dict[str, Any]] = {}
    for key, value in values.items():
        s: Setting[Any] = lookup(key)
        assert s.check(value) == value, f"{key} holds {value!r}"
        by_section.setdefault(s.section, {})[s.name] = value
    for section, vals in by_section.items():
        REGISTRY[section].check(vals)


@pytest.fixture(scope="module")
def broad_show(recordings_dir: Path) -> Iterator[Show]:
    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated (python -m sensekit.synth)")
    s = Show(demo, BROAD_RUN)
    yield s
    s.close()


@settings(max_examples=CASES, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_after_any_bad_datagram_the_server_answers_and_the_run_holds_valid_settings(broad_show: Show,
                                                                                    seed: int) -> None:
    s = broad_show
    keys = sorted(s.tuning.settings())
    lines = _Lines()
    log = logging.getLogger("sensekit")
    log.addHandler(lines)
    try:
        s.send(_bad_datagram(seed, keys))
        probe = 40.0 + seed % 1000 / 50.0                      # differs from case to case
        if s.control.last.get(PROBE_KEY) == probe:
            probe += 0.5
        accepted = s.control.accepted
        s.send(_osc_message(setting_address(PROBE_KEY).encode(), b"f", struct.pack(">f", probe)))
        wait_until(lambda: s.control.accepted > accepted and s.control.last.get(PROBE_KEY) == pytest.approx(probe),
              f"the valid setting after the datagram of seed {seed}")
        s.runner.run(max_items=3)                       # the queued values take effect
    finally:
        log.removeHandler(lines)
    values = s.tuning.settings()
    assert values[PROBE_KEY] == pytest.approx(probe)
    _assert_valid_settings(values)
    assert all("\n" not in line and "\r" not in line for line in lines.lines), lines.lines


@pytest.mark.skipif(not _voice_ready(), reason="the voice extra is not installed")
def test_a_word_list_longer_than_a_command_vocabulary_is_refused_at_every_door(
        show: Callable[[list[str]], Show]) -> None:
    """``voice.words`` had no bound: 3,000 dictionary words (a panel body holds ~12,000) made the
    recogniser take 0.35 s for each 0.84 s of speech (0.02 s with two words) on the audio thread.
    A list holds at most 64 words now, a rule of the declaration, so OSC, the panel, ``--set``
    and a profile say the same."""
    from sensekit.audio.words import _lexicon, require_voice
    from sensekit.panel.control import PanelControl

    lexicon = _lexicon(Path(require_voice().get_model_path()) / "en-us" / "cmudict-en-us.dict")
    known = sorted(w for w in lexicon if w.isalpha() and len(w) <= 5)
    max_words = 64
    s = show(["--words", "left"])
    voice = next(t for t in s.tuning.tunables() if type(t).SETTINGS.section == "voice")
    assert isinstance(voice, VoiceStage)
    s.send_and_wait(osc_message(setting_address("voice.words"), ",".join(known[:max_words + 1])), "65 words")
    assert s.control.rejected == 1 and voice.words == ("left",)
    panel = PanelControl(lambda: s.stages, s.tuning)
    with pytest.raises(Exception, match=f"`voice.words` holds at most {max_words} words, got 3,000"):
        panel.apply({"voice.words": known[:3000]}, {})
    s.send_and_wait(osc_message(setting_address("voice.words"), ",".join(known[:max_words])), "64 words")
    s.runner.run(max_items=5)
    assert s.control.accepted == 1 and len(voice.words) == max_words


# --- every setting at the ends of its range, live ------------------------------------------------

def _ends(s: Setting[Any]) -> list[Any]:
    """The values a fader or a script reaches first: each end of the range, each choice."""
    if s.kind in ("float", "int"):
        return [v for v in (s.lo, s.hi) if v is not None]
    if s.kind == "bool":
        return [True, False]
    if s.kind == "choice":
        return list(s.choices)
    return []


@pytest.mark.parametrize("run", [BROAD_RUN, ["--track-color", "160,100", "--motion", "--motion-method",
                                             "background", "--blobs", "--activity", "--pitch"]],
                         ids=["colour", "click"])
def test_every_setting_at_each_end_of_its_range_is_taken_or_refused_and_the_run_goes_on(
        show: Callable[[list[str]], Show], run: list[str]) -> None:
    """Each setting of the run sent over OSC at each end of its range (and each choice), then
    the run goes on 5 items: a value is applied or refused at the door, never taken and then
    fatal on the run's thread (``pitch.fmax`` 4000 at 16 kHz, ``tracker.method`` hsv on a
    clicked target both were). The settings are put back after each key."""
    s = show(run)
    start = s.tuning.settings()
    for key in sorted(start):
        for value in _ends(lookup(key)):
            before = s.counted()
            args = (1 if value else 0,) if isinstance(value, bool) else (value,)
            s.send(osc_message(setting_address(key), *args))
            wait_until(lambda: s.counted() > before, f"{key} = {value!r}")
            s.runner.run(max_items=5)
        s.tuning.apply_now({key: start[key]})
    _assert_valid_settings(s.tuning.settings())
