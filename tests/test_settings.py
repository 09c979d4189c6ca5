"""One table of settings: the declarations, live changes, presets, and every declared setting
round-tripped through the command line, a profile, OSC and Shift+S in a running app."""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from pythonosc.osc_message_builder import OscMessageBuilder
from pythonosc.udp_client import SimpleUDPClient

from sensekit.errors import ConfigError
from sensekit.settings import PRESETS, Tunable, Tuning, load_table, lookup, setting

from .settings_values import joint_values, other_value

HAVE_DEMO = (Path(__file__).resolve().parents[1] / "recordings" / "demo.skrec" / "meta.json").is_file()
needs_demo = pytest.mark.skipif(not HAVE_DEMO, reason="recordings/demo.skrec not generated")


def _all_values(*, hands: bool = True) -> dict[str, object]:
    """A non-default value for every declared setting (``key -> value``)."""
    out: dict[str, object] = {}
    for g in load_table().values():
        if g.section == "hands" and not hands:
            continue
        out.update({f"{g.section}.{n}": v for n, v in joint_values(g).items()})
    return out


# --- the table ------------------------------------------------------------------------

def test_every_setting_is_declared_completely():
    import sensekit.app.registry  # noqa: F401 - adds the apps' finder, as the CLI does

    table = load_table()
    assert len(table) >= 15
    count = 0
    for g in table.values():
        assert g.title, g.section
        for s in g.items:
            count += 1
            assert s.help and s.key == f"{g.section}.{s.name}"
            assert s.check(s.default) == s.default or s.kind == "zones", s.key      # a valid default
            if s.kind in ("float", "int"):
                assert s.lo is not None and s.hi is not None, f"{s.key} has no range"
            if s.kind == "choice":
                assert s.default in s.choices or (s.default is None and s.none), s.key
            assert other_value(s) != s.default
    assert count >= 60                                   # dozens


def test_settings_command_lists_every_setting_with_units_ranges_and_defaults(capsys):
    from sensekit.cli import main

    assert main(["settings", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    listed = {s["key"]: s for g in data["groups"] for s in g["settings"]}
    declared = {s.key for g in load_table().values() for s in g.items}
    assert set(listed) == declared and len(listed) >= 60
    for key in ("motion.threshold", "activity.silence_level", "tracker.hue_tolerance", "sound_flier.gravity"):
        assert key in listed
    assert listed["motion.threshold"]["lo"] == 1 and listed["motion.threshold"]["hi"] == 255
    assert listed["motion.threshold"]["flag"] == "--motion-threshold"
    assert all(s["expects"] and "default" in s for s in listed.values())
    assert data["presets"]["book"]["values"]["sound_flier.gravity"] == 0.4
    assert main(["settings", "motion"]) == 0
    text = capsys.readouterr().out
    assert "motion.threshold = none (from the camera noise)  --motion-threshold" in text
    assert main(["settings", "mootion"]) == 2
    assert "unknown settings section(s) mootion" in capsys.readouterr().err


def test_a_misspelt_settings_section_is_answered_with_the_closest(capsys):
    # `sensekit settings clapp` listed the sections but, unlike `clap.treshold`, named no closest
    from sensekit.cli import main

    assert main(["settings", "clapp"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sensekit: error: unknown settings section(s) clapp (did you mean 'clap'?); "
                          "sections: activity, ")
    assert main(["settings", "zzzz"]) == 2
    assert capsys.readouterr().err.startswith("sensekit: error: unknown settings section(s) zzzz; sections: ")


def test_settings_command_shows_one_setting_by_its_key(capsys):
    """`sensekit settings clap.threshold` (the key --set takes) was 'unknown settings section(s)'."""
    from sensekit.cli import main

    assert main(["settings", "--json", "motion.method", "clap"]) == 0
    data = json.loads(capsys.readouterr().out)
    listed = [s["key"] for g in data["groups"] for s in g["settings"]]
    clap = {s.key for s in load_table()["clap"].items}
    assert listed.count("motion.method") == 1 and set(listed) == clap | {"motion.method"}
    assert data["presets"]["book"]["values"] == {"motion.method": "difference"}
    assert main(["settings", "clap.threshold"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("[clap]  ") and "  clap.threshold = 0" in text
    assert "1 setting in 1 group. Set it with" in text
    assert main(["settings", "clap.treshold"]) == 2
    assert "unknown setting `clap.treshold`; did you mean clap.threshold?" in capsys.readouterr().err


def test_a_large_bound_is_printed_exactly_and_grouped():
    """`sensekit settings` said 'a whole number 1..1.07374e+09 px' (rounded, not the bound)."""
    area = lookup("tracker.min_area_px")
    assert area.expectation() == "a whole number 1..1,073,741,824 px"
    assert area.check(1073741824) == 1073741824
    with pytest.raises(ConfigError, match=r"must be a whole number 1\.\.1,073,741,824 px, got 1073741825"):
        area.check(1073741825)
    assert lookup("activity.timeout_ms").expectation() == "a number 0..600000 ms"      # below a million: as before


def test_every_preset_value_is_a_valid_setting():
    for p in PRESETS.values():
        for key, value in p.values.items():
            assert lookup(key).check(value) == value, key


# --- live changes --------------------------------------------------------------------------

def _low_below_high(v):
    if not v["low"] < v["high"]:
        raise ConfigError("`test_meter.low` must be below `test_meter.high`")


class _Meter(Tunable, section="test_meter", title="a meter for the tests", rule=_low_below_high):
    low = setting(10.0, "low mark", lo=0, hi=100)
    high = setting(90.0, "high mark", lo=0, hi=100)

    def __init__(self, **settings):
        self.init_settings(settings)
        self.seen: list[tuple[float, float]] = []

    def process(self, x: float) -> None:
        if self._pending:
            self.apply_pending()
        self.seen.append((self.low, self.high))


def test_apply_checks_everything_first_and_takes_effect_on_the_next_item():
    m = _Meter(low=20)
    m.process(0)
    with pytest.raises(ConfigError, match="`test_meter.high` must be a number 0..100, got 200"):
        m.apply(low=30, high=200)                       # one bad value: nothing changes
    with pytest.raises(ConfigError, match="must be below"):
        m.apply(low=95)                                 # the rule, against the current values
    m.apply(low=30, high=80)
    assert m.settings() == {"low": 30.0, "high": 80.0}  # what will apply ...
    assert (m.low, m.high) == (20.0, 90.0)              # ... from the next item on
    m.process(1)
    assert m.seen == [(20.0, 90.0), (30.0, 80.0)]


def test_apply_from_other_threads_while_processing_is_never_torn():
    """Eight threads apply (low, high) pairs while the loop processes: every item sees a pair
    that was applied together, and the last value sent sticks."""
    m = _Meter()
    pairs = [(float(i), float(i) + 50.0) for i in range(40)]
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            m.process(0)

    t = threading.Thread(target=loop)
    t.start()
    workers = [threading.Thread(target=lambda ps=pairs[k::8]: [m.apply(low=lo, high=hi) for lo, hi in ps])
               for k in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    m.apply(low=1.0, high=2.0)
    time.sleep(0.05)
    stop.set()
    t.join()
    assert set(m.seen) <= set(pairs) | {(10.0, 90.0), (1.0, 2.0)}
    assert m.seen[-1] == (1.0, 2.0)


def test_a_stage_looks_at_its_settings_only_when_one_changed():
    """Per frame, nothing but a comparison: pending values are taken once, after a change."""
    from sensekit.capture.base import VideoFrame
    from sensekit.vision.motion import MotionDetector
    from sensekit.vision.pipeline import VisionStage

    stage = VisionStage(motion=MotionDetector(), edges=True)
    calls: list[str] = []
    for t in stage.tunables():
        original = t.apply_pending
        t.apply_pending = lambda original=original, t=t: (calls.append(type(t).__name__), original())[1]
    frame = np.zeros((60, 80, 3), np.uint8)
    for i in range(5):
        stage.process(VideoFrame(i, i / 30, frame))
    assert calls == []
    stage.motion.apply(min_amount=0.05)
    stage.process(VideoFrame(5, 5 / 30, frame))
    stage.process(VideoFrame(6, 6 / 30, frame))
    assert calls == ["MotionDetector"] and stage.motion.min_amount == 0.05


def test_tuning_speaks_keys_and_reports_what_no_stage_uses():
    m = _Meter()
    tuning = Tuning(lambda: [m])
    done = tuning.apply({"test_meter.low": 5, "motion.threshold": 30})
    assert done.values == {"test_meter.low": 5.0} and done.unused == ["motion.threshold"]
    with pytest.raises(ConfigError, match="unknown setting `test_meter.lo`; did you mean test_meter.low"):
        tuning.apply({"test_meter.lo": 5})
    assert tuning.settings()["test_meter.low"] == 5.0


# --- every setting through every adapter ---------------------------------------------------

def test_every_setting_round_trips_through_the_command_line():
    """``--set KEY=VALUE`` for every setting, and the bound option where one exists, give the
    value back exactly (the text is the setting's own ``format``)."""
    import argparse

    from sensekit.cli.tuning import add_setting_flags, add_tuning_arguments, chosen_values

    values = _all_values()
    parser = argparse.ArgumentParser()
    add_tuning_arguments(parser)
    flagged = add_setting_flags(parser, sorted(load_table()))
    argv = [a for key, v in values.items() for a in ("--set", f"{key}={lookup(key).format(v)}")]
    assert chosen_values(parser.parse_args(argv)).values == values
    flags = []
    for s in flagged:
        v = values[s.key]
        flags += [s.flag if v else f"--no-{s.flag[2:]}"] if s.kind == "bool" else [s.flag, s.format(v)]
    chosen = chosen_values(parser.parse_args(flags)).values
    assert chosen == {s.key: values[s.key] for s in flagged} and len(flagged) >= 15


EVERYTHING_APP = '''
"""Every stage in one app: the test for Shift+S over every detector setting."""
from sensekit.app import App
from sensekit.errors import ConfigError
from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector, ClapPatternTracker
from sensekit.audio.pipeline import AudioStage
from sensekit.audio.pitch import PitchTracker
from sensekit.vision.blob_tracker import BlobTracker
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage


class Everything(App):
    title = "Everything"
    needs = frozenset({"video", "audio"})
    hands = "switch"

    def stages(self):
        from sensekit.app.hand_input import HandInput
        self.hand = HandInput(self)
        try:                                           # the voice extra, when installed
            from sensekit.audio.voice import VoiceStage
            voice = [VoiceStage({"words": ("left",)})]
        except ConfigError:
            voice = []
        try:                                           # the hands extra, when installed
            from sensekit.vision.silhouette import SilhouetteStage
            voice.append(SilhouetteStage())
        except ConfigError:
            pass
        return [*voice, AudioStage(activity=ActivityDetector(), clap=ClapDetector(), pattern=ClapPatternTracker(),
                           pitch=PitchTracker()),
                VisionStage(tracker=ColorTracker("#eb2d14"), motion=MotionDetector(), blobs=BlobTracker(),
                            edges=True),
                *self.hand.stages()]

    def setup(self):
        self.on("*", lambda event: None)              # everything runs

    def draw(self, screen):
        screen.fill((0, 0, 0))
'''


def _hands_available() -> bool:
    from sensekit.vision.hands import hands_available
    return hands_available()


def _voice_available() -> bool:
    from sensekit.audio.words import require_voice
    try:
        require_voice()
    except ConfigError:
        return False
    return True


def _run_and_save(app: str, values: dict, tmp_path: Path, extra: list[str] = ()) -> dict:
    """``sensekit run APP --set ... --keys S@0.2``: the profile Shift+S saved, loaded."""
    from sensekit.cli import main
    from sensekit.profile import load_profile

    venue = tmp_path / f"{Path(app).stem}.toml"
    argv = ["run", app, "--headless", "--frames", "12", "--keys", "S@0.2", "--profile", str(venue),
            "--screenshot", str(tmp_path / f"{Path(app).stem}.png"), *extra]
    for key, v in values.items():
        argv += ["--set", f"{key}={lookup(key).format(v)}"]
    venue.write_text("")
    assert main(argv) == 0
    return dict(load_profile(venue))


@needs_demo
def test_every_stage_setting_round_trips_through_shift_s(tmp_path: Path):
    """Every detector and stage setting, set on the command line of a running app, is saved by
    Shift+S (the ``--keys S@...`` script) and loads back equal."""
    app = tmp_path / "everything.py"
    app.write_text(EVERYTHING_APP)
    from sensekit.settings.registry import library_sections

    hands = _hands_available()
    # pose: no app builds a pose stage yet (``sensekit events --pose`` only), so nothing saves it
    values = {k: v for k, v in _all_values(hands=hands).items()
              if k.split(".")[0] in library_sections() and not k.startswith("pose.")}
    if not _voice_available():
        values = {k: v for k, v in values.items() if not k.startswith("voice.")}
    if not hands:
        values = {k: v for k, v in values.items() if not k.startswith("silhouette.")}
    saved = _run_and_save(str(app), values, tmp_path, ["--hands"] if hands else [])
    assert {k: saved.get(k) for k in values} == values


@needs_demo
@pytest.mark.parametrize("name", ["sound_flier", "clapper", "activity_graph", "color_ball", "motion_paddle",
                                  "edge_snow", "steer", "collide", "pinch_toss"])
def test_every_app_setting_round_trips_through_shift_s(tmp_path: Path, name: str):
    group_ = load_table()[name]
    values = {f"{name}.{n}": v for n, v in joint_values(group_).items()}
    saved = _run_and_save(name, values, tmp_path)
    assert {k: saved.get(k) for k in values} == values


def _wait(predicate, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.005)


def _host(app_path: str, tmp_path: Path, **options):
    from sensekit.app.host import AppHost, RunOptions
    from sensekit.app.registry import resolve
    from sensekit.app.sources import bundled_source

    cls = resolve(app_path)
    source = bundled_source(cls)
    source.open()
    return AppHost(cls, source, RunOptions(headless=True, screenshot_dir=tmp_path, **options)), source


@needs_demo
def test_every_setting_round_trips_through_osc(tmp_path: Path):
    """Every setting sent as ``/sensekit/set/<section>/<name>`` over UDP to running apps arrives,
    checked, from the next step on."""
    from sensekit.osc import OscControl, setting_address

    app = tmp_path / "everything.py"
    app.write_text(EVERYTHING_APP)
    from sensekit.settings.registry import library_sections

    table = load_table()
    library = library_sections()
    hands = _hands_available()
    voice = _voice_available()
    targets = [(str(app), [g for g in library if (hands or g not in ("hands", "silhouette")) and g != "pose"
                           and (voice or g != "voice")])]
    targets += [(name, [name]) for name in ("sound_flier", "clapper", "activity_graph", "color_ball",
                                            "motion_paddle", "edge_snow", "steer", "collide", "pinch_toss")]
    for app_name, sections in targets:
        host, source = _host(app_name, tmp_path, hands=hands)
        try:
            values = {f"{sec}.{n}": v for sec in sections for n, v in joint_values(table[sec]).items()}

            def message(key: str, v: object) -> OscMessageBuilder:
                s = lookup(key)
                msg = OscMessageBuilder(setting_address(key))
                if v is None:
                    msg.add_arg(None, "N")
                elif s.kind in ("choice", "color", "zones", "words", "numbers"):
                    msg.add_arg(s.format(v), "s")
                elif s.kind == "bool":
                    msg.add_arg(int(v), "i")
                else:
                    msg.add_arg(v)
                return msg

            with OscControl("127.0.0.1", 0, tuning=host.tuning) as control:
                client = SimpleUDPClient("127.0.0.1", control.port)
                first = {k: v for k, v in values.items() if k == "motion.method"}
                for key, v in first.items():          # the background model exists once this applies
                    client.send(message(key, v).build())
                _wait(lambda: control.accepted >= len(first))
                host.step()
                for key, v in values.items():
                    client.send(message(key, v).build())
                _wait(lambda: control.accepted + control.rejected + control.unused >= len(values) + len(first))
            host.step()
            host.step()
            assert control.rejected == 0 and control.unused == 0, (app_name, control.stats())
            current = host.tuning.settings()
            assert {k: current[k] for k in values} == values, app_name
        finally:
            host.close()
            source.close()


# --- presets ---------------------------------------------------------------------------------

def test_the_book_preset_in_events(capsys):
    """`sensekit events demo --preset book`: the book's clapper thresholds and tracking method."""
    from sensekit.cli import main

    if not HAVE_DEMO:
        pytest.skip("recordings/demo.skrec not generated")
    assert main(["events", "demo", "--preset", "book", "--activity", "--track-color", "#eb2d14", "--motion",
                 "--jsonl", "--max-items", "300"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    names = {e["event"] for e in lines}
    assert {"activity", "color_tracked", "motion"} <= names


# --- adding a setting is one line ----------------------------------------------------------

BALLOON = '''
"""A balloon that grows with sound."""
from sensekit.app import App
from sensekit.audio.pipeline import AudioStage
from sensekit.settings import setting


class Balloon(App, section="balloon", title="a balloon that grows with sound"):
    title = "Balloon"
    needs = frozenset({"audio"})
    growth = setting(1.5, "pixels per level per second", unit="px", lo=0, hi=10, step=0.5)
    plus_minus = ("balloon.growth", 1)

    def stages(self):
        return [AudioStage()]

    def draw(self, screen):
        screen.fill((0, 0, 0))
'''


@needs_demo
def test_a_new_setting_is_one_line_and_appears_everywhere(tmp_path: Path, monkeypatch, capsys):
    """An app of your own declares ``balloon.growth``: it is in ``sensekit settings``, ``--set``
    takes it, the + key steps it, Shift+S saves it, a profile loads it, OSC sets it."""
    from sensekit.cli import main
    from sensekit.osc.control import value_from_args
    from sensekit.profile import loads_profile

    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "balloon.py").write_text(BALLOON)
    monkeypatch.setenv("SENSEKIT_APPS_DIR", str(tmp_path / "apps"))
    import sensekit.settings.registry as registry
    monkeypatch.setitem(registry._loaded, "apps", False)
    assert main(["settings", "balloon", "--json"]) == 0
    [g] = json.loads(capsys.readouterr().out)["groups"]
    assert g["settings"][0]["key"] == "balloon.growth" and g["settings"][0]["unit"] == "px"
    venue = tmp_path / "v.toml"
    venue.write_text("")
    assert main(["run", "balloon", "--headless", "--frames", "12", "--set", "balloon.growth=2.5",
                 "--keys", "+@0.1,S@0.2", "--profile", str(venue), "--screenshot", str(tmp_path / "b.png")]) == 0
    assert loads_profile(venue.read_text())["balloon.growth"] == 3.0
    assert value_from_args("balloon.growth", (4.0,)) == 4.0


@needs_demo
def test_an_app_file_run_by_path_takes_set_of_its_own_settings(tmp_path: Path, monkeypatch, capsys):
    """`sensekit run my_app.py --set my_section.name=V` (the tutorial's "take `--set
    balloon.growth=2`"): the file declares its section when it is loaded, after the arguments
    were parsed; --set was refused as an unknown setting. A typo in a name it declares, or a
    value out of its range, is still one line, exit 2. `sensekit settings my_app.py` lists them."""
    from sensekit.cli import main
    from sensekit.profile import loads_profile
    from sensekit.settings.declare import REGISTRY

    app = tmp_path / "kite.py"
    app.write_text(BALLOON.replace('section="balloon"', 'section="file_kite"'))
    venue = tmp_path / "v.toml"
    venue.write_text("")
    try:
        assert "file_kite" not in REGISTRY
        assert main(["settings", str(app)]) == 0                     # the tutorial: "they show in"
        assert "file_kite.growth = 1.5 px  (+/- step 0.5)" in capsys.readouterr().out
        plain = tmp_path / "plain.py"
        plain.write_text(BALLOON.replace(', section="balloon", title="a balloon that grows with sound"', "")
                         .replace("growth = setting", "growth = 1.5  #"))
        assert main(["settings", str(plain)]) == 2
        assert "app file " in (err := capsys.readouterr().err) and "declares no settings" in err, err
        assert main(["run", str(app), "--headless", "--frames", "12", "--set", "file_kite.growth=2.5",
                     "--keys", "S@0.2", "--profile", str(venue)]) == 0
        assert loads_profile(venue.read_text())["file_kite.growth"] == 2.5
        capsys.readouterr()
        assert main(["run", str(app), "--headless", "--frames", "2", "--set", "file_kite.grwth=2"]) == 2
        assert "unknown setting `file_kite.grwth`; did you mean file_kite.growth?" in capsys.readouterr().err
        assert main(["run", str(app), "--headless", "--frames", "2", "--set", "file_kite.growth=20"]) == 2
        assert "`file_kite.growth` must be a number 0..10 px, got 20" in capsys.readouterr().err
        assert main(["run", "clapper", "--headless", "--frames", "2", "--set", "no_such.thing=1"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "unknown setting `no_such.thing`" in err, err
    finally:
        REGISTRY.pop("file_kite", None)


def test_words_kind_parses_checks_and_formats():
    from sensekit.settings import Setting

    class _Words(Tunable, section="test_words", title="words for the tests"):
        words: Setting[tuple[str, ...]] = setting((), "command words", kind="words")

    s = _Words.SETTINGS["words"]
    assert s.parse(" Left, right,,left ") == ("left", "right")       # lower-cased, no repeats
    assert s.check(["Up", "down"]) == ("up", "down") and s.check(()) == ()
    assert s.parse(s.format(("up", "down"))) == ("up", "down") and s.parse("none") == ()
    for bad in (["two words"], [3], "a=b", {"a": 1}, 5):
        with pytest.raises(ConfigError, match="words"):
            s.check(bad)


def test_a_moved_setting_says_where_it_went_wherever_it_is_typed(caplog):
    """``--set``, OSC control and the panel name a key the user types now: an old key from the
    one table of renames gets a one-line error naming the new key, not 'unknown setting'."""
    import argparse

    from sensekit.cli.tuning import add_tuning_arguments
    from sensekit.osc.control import OscControl
    from sensekit.panel.control import PanelControl
    from sensekit.settings.renames import RENAMED
    from sensekit.vision.color_tracker import ColorTracker
    from sensekit.vision.pipeline import VisionStage

    parser = argparse.ArgumentParser(exit_on_error=False)
    add_tuning_arguments(parser)
    stage = VisionStage(tracker=ColorTracker("#ff0000"))
    tuning = Tuning(lambda: [stage, stage.tracker])
    panel = PanelControl(lambda: [stage], tuning)
    assert set(RENAMED) >= {"tracker.blur_px", "tracker.levels"}
    for old, (new, _why) in RENAMED.items():
        said = f"`{old}` moved to `{new}`"
        with pytest.raises(argparse.ArgumentError, match=said):
            parser.parse_args(["--set", f"{old}=3"])
        with pytest.raises(ConfigError, match=said):
            panel.apply(texts={old: "3"})
        with pytest.raises(ConfigError, match=said):
            panel.apply({old: 3})
        with pytest.raises(ConfigError, match=said):
            lookup(old)
        with OscControl("127.0.0.1", 0, tuning=tuning) as control:
            section, name = old.split(".")
            control.handle(f"/sensekit/set/{section}/{name}", 3)
        assert control.rejected == 1 and control.accepted == 0
        assert said in caplog.records[-1].getMessage()
