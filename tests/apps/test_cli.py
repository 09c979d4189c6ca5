"""`sensekit apps` and `sensekit run`: listing, unknown apps, missing inputs, the bundled fallback."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from sensekit.cli import main

APPS = {"sound_flier", "clapper", "activity_graph", "color_ball", "motion_paddle", "edge_snow"}


def test_apps_lists_every_app_with_a_description(capsys):
    assert main(["apps"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    for name in APPS:
        assert name in lines and len(lines[name].split(None, 1)[1]) > 20


def test_the_list_says_which_app_needs_the_hands_extra(capsys):
    """`sensekit apps` listed pinch_toss like the others; it does nothing without the hands extra
    (the README says "with the optional hands extra"), which a new user learnt only on running it."""
    assert main(["apps"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("pinch_toss "))
    assert line.endswith("through the hoop (hands extra)."), line


def test_run_unknown_app_lists_the_apps(capsys):
    assert main(["run", "nosuchapp", "--headless"]) == 2
    err = capsys.readouterr().err
    assert "no app named 'nosuchapp'; the apps are:" in err
    assert all(name in err for name in APPS)


def test_a_misspelt_app_name_is_answered_with_the_closest(capsys):
    assert main(["run", "soundflier", "--headless"]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first == "sensekit: error: no app named 'soundflier' (did you mean 'sound_flier'?); the apps are:"


@pytest.fixture
def video_only_file(tmp_path):
    path = tmp_path / "silent.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 15, (64, 48))
    for i in range(10):
        writer.write(np.full((48, 64, 3), i * 20, np.uint8))
    writer.release()
    return path


def test_clapper_on_a_video_only_file_says_it_needs_audio(video_only_file, capsys):
    assert main(["run", "clapper", "--source", f"file:{video_only_file}", "--headless",
                 "--frames", "5"]) == 2
    err = capsys.readouterr().err
    assert "clapper needs audio" in err and "video only" in err
    assert err.count("\n") == 1


def test_video_app_runs_on_a_video_file(video_only_file, tmp_path, capsys):
    shot = tmp_path / "shot.png"
    assert main(["run", "edge_snow", "--source", f"file:{video_only_file}", "--headless",
                 "--frames", "5", "--screenshot", str(shot)]) == 0
    assert shot.is_file()


def test_no_source_falls_back_to_the_bundled_recording_with_one_line(tmp_path, capsys, recordings_dir):
    if not (recordings_dir / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    events = tmp_path / "events.jsonl"
    assert main(["run", "clapper", "--headless", "--frames", "30", "--events", str(events)]) == 0
    out = capsys.readouterr().out.splitlines()
    notes = [line for line in out if "bundled recording" in line]
    assert len(notes) == 1 and "demo" in notes[0]
    assert events.read_text().count("\n") > 10


def test_the_bundled_recording_note_says_a_window_repeats_it(monkeypatch, recordings_dir):
    """In a window the bundled recording plays over and over (an exhibition never ends), and the
    note said only "playing the bundled recording 'demo'": a new user waited for the 20 s demo
    to end. Headless it ends, and the note says nothing of repeating."""
    if not (recordings_dir / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    from sensekit.app import sources
    from sensekit.app.registry import resolve

    monkeypatch.setattr(sources, "live_spec", lambda app_cls: None)       # no camera, no microphone
    notes = {}
    for loop in (True, False):
        source, notes[loop] = sources.open_for_app(resolve("clapper"), None, loop=loop)
        source.close()
    assert notes[True] == ("no microphone found; playing the bundled recording 'demo' "
                           "(over and over until esc or Ctrl-C; use --source to choose)"), notes[True]
    assert notes[False] == ("no microphone found; playing the bundled recording 'demo' "
                            "(use --source to choose)"), notes[False]


def test_the_note_of_a_headless_loop_names_no_esc(monkeypatch, recordings_dir):
    """`sensekit run color_ball --headless --loop` said "over and over until esc or Ctrl-C": no
    window, so no esc; headless the note names only Ctrl-C."""
    if not (recordings_dir / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    from sensekit.app import sources
    from sensekit.app.registry import resolve

    monkeypatch.setattr(sources, "live_spec", lambda app_cls: None)       # no camera, no microphone
    source, note = sources.open_for_app(resolve("clapper"), None, loop=True, headless=True)
    source.close()
    assert note == ("no microphone found; playing the bundled recording 'demo' "
                    "(over and over until Ctrl-C; use --source to choose)"), note


def test_readme_run_command_on_a_machine_without_display_or_devices(tmp_path):
    """The README's main command, on a server with no screen, camera or microphone:
    it says what it fell back to, plays the bundled recording headless, and saves a picture."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    env["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
    proc = subprocess.run([sys.executable, "-m", "sensekit", "run", "sound_flier"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "no display found" in proc.stdout
    assert "bundled recording" in proc.stdout
    shot = tmp_path / "out" / "sound_flier.png"
    assert shot.is_file() and shot.stat().st_size > 5000


def _run_env(**display):
    import os

    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER", "SDL_AUDIODRIVER")}
    return {**env, "PYGAME_HIDE_SUPPORT_PROMPT": "1", "SDL_AUDIODRIVER": "dummy", **display}


def test_a_display_that_opens_nothing_runs_headless_instead_of_an_invisible_window(tmp_path):
    """DISPLAY set but no X server there (a stale ssh forwarding): SDL fell back to its invisible
    offscreen driver, and the looping replay ran in a window nobody saw, for ever."""
    import subprocess
    import sys
    from pathlib import Path

    if Path("/tmp/.X11-unix/X987").exists():
        pytest.skip("an X server answers on :987 here")
    proc = subprocess.run([sys.executable, "-m", "sensekit", "run", "clapper"], cwd=tmp_path,
                          env=_run_env(DISPLAY=":987"), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == ("no display opens (DISPLAY=':987'): running headless; "
                                           "the last frame goes to out/clapper.png")
    assert (tmp_path / "out" / "clapper.png").stat().st_size > 5000


def _run_in_a_window(argv: list[str], cwd: Path):
    """``python -m sensekit ARGV`` in ``cwd`` with a virtual screen (Xvfb) of its own: Xvfb picks a
    free display number and writes it to a pipe once it accepts clients (``-displayfd``), so a
    second test run on the machine cannot share (and then close) the screen, and a loaded machine
    cannot start the app before the screen is up."""
    import os
    import select
    import shutil
    import subprocess
    import sys

    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    read_end, write_end = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", "800x600x24"],
                              pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_end)
    try:
        number = b""
        while not number.endswith(b"\n"):
            ready, _, _ = select.select([read_end], [], [], 60.0)
            chunk = os.read(read_end, 16) if ready else b""
            assert chunk, f"Xvfb gave no display number (exit status {server.poll()})"
            number += chunk
        return subprocess.run([sys.executable, "-m", "sensekit", *argv], cwd=cwd,
                              env=_run_env(DISPLAY=f":{int(number)}"), capture_output=True, text=True,
                              timeout=120)
    finally:
        os.close(read_end)
        server.terminate()
        server.wait(timeout=10)


def test_a_display_that_opens_gets_the_window(tmp_path_factory):
    # the run now names the files it wrote by their full path: a folder named after this test
    # would put "display" in stdout
    tmp_path = tmp_path_factory.mktemp("window")
    proc = _run_in_a_window(["run", "clapper", "--frames", "15", "--screenshot", "shot.png"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "running headless" not in proc.stdout and "display" not in proc.stdout.lower()
    assert (tmp_path / "shot.png").stat().st_size > 5000


def _balloon(tmp_path: Path, setup: str) -> Path:
    """``tmp_path/balloon.py``: an audio app whose ``setup`` body is ``setup`` (its lines, indented)."""
    app = tmp_path / "balloon.py"
    app.write_text('from sensekit.app import App\nfrom sensekit.audio.pipeline import AudioStage\n\n\n'
                   'class Balloon(App):\n    needs = frozenset({"audio"})\n\n'
                   '    def stages(self):\n        return [AudioStage()]\n\n'
                   '    def setup(self):\n' + setup + '\n'
                   '    def draw(self, screen):\n        screen.fill((0, 0, 0))\n')
    return app


#: an app whose setup attaches a handler wrongly, and the one line the run stops with:
#: a misspelt event (the bundled-recording notice used to come first, the error after it), and
#: self.on("level", self.hear()) handing on what hear() returned (None: a TypeError traceback,
#: "'NoneType' object is not callable", from the dispatcher at the first level event)
BAD_SETUPS = [
    ('        self.on("levle", print)\n',
     "sensekit: error: unknown event name 'levle'; did you mean 'level'?"),
    ('        self.on("level", self.hear())\n\n    def hear(self, event=None):\n        pass\n',
     "sensekit: error: the handler for 'level' must be a function that takes the event, got None (pass the "
     "method itself: self.hear, not self.hear())"),
]


@pytest.mark.parametrize(("setup", "error"), BAD_SETUPS, ids=["misspelt event", "handler called, not passed"])
def test_a_handler_attached_wrongly_is_one_line_when_it_is_attached(setup, error, tmp_path, capsys,
                                                                    recordings_dir):
    if not (recordings_dir / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    app = _balloon(tmp_path, setup)
    assert main(["run", str(app), "--headless", "--frames", "5"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1, captured
    assert captured.err.startswith(error), captured.err


def test_an_app_that_listens_to_an_event_no_stage_emits_is_told_when_the_run_starts(tmp_path, caplog,
                                                                                     recordings_dir):
    # the tutorial's step 4 without its ClapDetector: the balloon never popped, and nothing said why
    if not (recordings_dir / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    app = _balloon(tmp_path, '        self.on("level", print)\n        self.on("clap", print)\n'
                         '        self.on("source_lost", print)\n')
    assert main(["run", str(app), "--headless", "--frames", "2", "--osc", "127.0.0.1:9"]) == 0
    said = [r.getMessage() for r in caplog.records if "which no stage" in r.getMessage()]
    assert said == ["balloon listens to clap, which no stage of this run emits: give a stage its detector "
                    "(e.g. AudioStage(clap=ClapDetector()), VisionStage(motion=MotionDetector()))"], said
    for name in ("clapper", "sound_flier", "color_ball"):      # the bundled apps hear what they listen to
        caplog.clear()
        assert main(["run", name, "--headless", "--frames", "2", "--osc", "127.0.0.1:9"]) == 0
        assert not [r for r in caplog.records if "which no stage" in r.getMessage()], name


@pytest.mark.parametrize("option, value, said", [
    ("--track-color", "900,900", "--track-color 900,900 is outside the 320x240 frame"),
    ("--track-box", "300,200,50,50", "--track-box 300,200,50,50 is not inside the 320x240 frame"),
])
def test_a_track_target_outside_the_recording_is_refused_before_the_run(option, value, said, capsys,
                                                                       recordings_dir):
    # it was found on the first frame: after the bundled-recording notice, and worded as
    # "click (900.0, 900.0)" / "box (300.0, 200.0, 50.0, 50.0)", unlike `sensekit events`
    if not (recordings_dir / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    for argv in (["run", "color_ball", "--headless", "--frames", "3"], ["events", "demo"]):
        assert main([*argv, option, value]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err == f"sensekit: error: {said}\n", argv


def test_the_closing_lines_name_every_file_the_run_wrote(video_only_file, tmp_path, capsys,
                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    args = ["run", "edge_snow", "--source", f"file:{video_only_file}", "--headless", "--frames",
            "5", "--screenshot", "shot.png", "--video", "out/run.avi", "--events", "ev.jsonl"]
    assert main(args) == 0
    out = capsys.readouterr().out.splitlines()
    for what, name in (("screenshot", "shot.png"), ("video", "out/run.avi"), ("events", "ev.jsonl")):
        assert (tmp_path / name).is_file()
        assert f"{what}: {tmp_path / name}" in out, out


def test_a_run_in_a_window_that_ends_names_the_files_it_wrote(tmp_path):
    # headless and interrupted runs printed "screenshot: PATH" etc.; a window run that ended
    # normally (--frames, esc, the end of a recording) printed nothing about its files
    proc = _run_in_a_window(["run", "clapper", "--frames", "15", "--screenshot", "shot.png",
                                     "--events", "ev.jsonl"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert "running headless" not in proc.stdout
    assert f"screenshot: {tmp_path / 'shot.png'}" in out, out
    assert f"events: {tmp_path / 'ev.jsonl'}" in out, out
    assert out[-2:] == [f"screenshot: {tmp_path / 'shot.png'}", f"events: {tmp_path / 'ev.jsonl'}"], out


def test_no_display_with_a_live_device_runs_on_the_device_headless(video_only_file, tmp_path, capsys,
                                                                  monkeypatch):
    # README said "With none (or no screen), it plays the app's bundled recording": without a
    # screen it runs headless on the live devices there are (here a file stands in for a camera)
    import sensekit.app.sources as sources

    monkeypatch.chdir(tmp_path)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sources, "live_spec", lambda app_cls: f"file:{video_only_file}")
    assert main(["run", "edge_snow", "--frames", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "no display found: running headless; the last frame goes to out/edge_snow.png"
    assert not any("bundled recording" in line for line in out), out
    assert out[-1] == f"screenshot: {tmp_path / 'out' / 'edge_snow.png'}"


def test_a_source_that_fails_to_open_is_not_promised_a_screenshot(tmp_path, capsys, monkeypatch):
    """`sensekit run clapper --source mic` with no microphone printed "no display found: running
    headless; the last frame goes to out/clapper.png" and then the error: no frame, no picture."""
    monkeypatch.chdir(tmp_path)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    assert main(["run", "clapper", "--source", "nothing.wav"]) == 2
    said = capsys.readouterr()
    assert "no such file or recording: 'nothing.wav'" in said.err
    assert "running headless" not in said.out and "last frame" not in said.out, said.out


def test_a_run_that_fails_before_starting_leaves_no_out_folder(tmp_path, capsys, monkeypatch):
    """The headless run's ``out/`` was made before the source opened: a run that failed there left
    an empty ``out/`` in the user's folder. It is made when the picture is written."""
    monkeypatch.chdir(tmp_path)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    assert main(["run", "clapper", "--source", "nothing.wav"]) == 2
    assert "no such file or recording: 'nothing.wav'" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    assert main(["run", "clapper", "--frames", "2"]) == 0          # a run that draws makes it
    assert capsys.readouterr().out.splitlines()[-1] == f"screenshot: {tmp_path / 'out' / 'clapper.png'}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_no_display_and_an_out_that_cannot_be_made_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "out").write_text("a file, not a folder")
    assert main(["run", "clapper", "--frames", "2"]) == 2
    err = capsys.readouterr().err
    assert "no display, and cannot make 'out' for the screenshot" in err, err
    assert (tmp_path / "out").read_text() == "a file, not a folder"
