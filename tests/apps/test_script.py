"""Scripted input for every app: --pick X,Y, --mode NAME, --keys "c@2.0,space@5"."""
from __future__ import annotations

import pytest

from sensekit.app.registry import load
from sensekit.app.script import KeyPress, Script, check_mode, parse_keys, parse_pick
from sensekit.cli import main
from sensekit.errors import ConfigError

STEP_S = 1 / 30
PURPLE_BOOK = (259, 52)        # the purple book on the right-hand shelf of the demo (mirrored picture)


def test_parse_keys_sorts_by_time_and_knows_the_host_keys():
    assert parse_keys("space@5, c@2.0,S@1,+@3") == (
        KeyPress(1.0, "S"), KeyPress(2.0, "c"), KeyPress(3.0, "+"), KeyPress(5.0, "space"))
    assert parse_keys("ESC@0")[0].key == "esc"


def test_every_overlay_key_of_the_window_can_be_scripted():
    """`b` (the silhouette overlay) worked in the window but --keys refused it."""
    from sensekit.app.overlay_view import OVERLAY_KEYS
    from sensekit.app.script import KEYS

    scripted = {code for code, mod in KEYS.values() if not mod}
    assert set(OVERLAY_KEYS) <= scripted
    assert parse_keys("b@0.5") == (KeyPress(0.5, "b"),)


def test_the_hand_key_can_be_scripted(tmp_path, monkeypatch):
    """docs/apps.md lists `h` (hand input on or off; the apps without hand input say they take
    none) among the keys of every app, but --keys refused it: "unknown key 'h'"."""
    import pygame

    from sensekit.app.script import KEYS

    assert parse_keys("h@0.5") == (KeyPress(0.5, "h"),) and KEYS["h"] == (pygame.K_h, 0)
    monkeypatch.chdir(tmp_path)
    for app in ("clapper", "color_ball"):
        assert main(["run", app, "--headless", "--frames", "30", "--keys", "h@0.5"]) == 0


@pytest.mark.parametrize("text, message", [
    ("c", "KEY@SECONDS (e.g. c@2.0), got 'c'"),
    ("@2", "got '@2'"),
    ("x@1", "unknown key 'x' in 'x@1'; keys: space c s S + - r q esc m e p b"),
    ("c@soon", "the time in 'c@soon' must be seconds >= 0, got 'soon'"),
    ("c@-1", "must be seconds >= 0"),
    ("c@nan", "must be seconds >= 0"),
    ("c@1,", "got ''"),
])
def test_parse_keys_rejects_bad_entries_quoting_them(text, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        parse_keys(text)


@pytest.mark.parametrize("text", ["1", "1,2,3", "a,b", "1.5,2", ""])
def test_parse_pick_needs_two_whole_numbers(text):
    with pytest.raises(ConfigError, match=f"X,Y in whole pixels, got '{text}'"):
        parse_pick(text)


def test_modes_forgive_case_dashes_and_underscores():
    steer = load("steer")
    assert check_mode(steer, "Flock-Flees_hand") == "flock flees hand"
    with pytest.raises(ConfigError, match="steer's modes are arrive-at-colour, arrive-at-motion"):
        check_mode(steer, "dance")                # named as a shell takes them unquoted (had spaces)
    with pytest.raises(ConfigError, match="^--mode 'wanderer': did you mean wanderers\\? steer's modes are "):
        check_mode(steer, "wanderer")
    with pytest.raises(ConfigError, match="^--mode 'dance': steer's modes are"):
        check_mode(steer, "dance")                # nothing close: no guess
    assert check_mode(steer, "flock-flees-hand") == "flock flees hand"   # the listed form is taken
    with pytest.raises(ConfigError, match="clapper has no modes"):
        check_mode(load("clapper"), "x")


@pytest.mark.parametrize("app, mode, key", [("steer", "wanderers", "mode"), ("collide", "node garden", "scene")])
def test_mode_starts_the_app_in_that_mode(play, app, mode, key):
    host = play(app, 3, script=Script(mode=mode))
    assert host.app.modes[getattr(host.app, key)] == mode


def test_keys_fire_at_their_run_time(play):
    seen = []
    host = play("steer", 62, lambda h: seen.append((h.frame_no, h.app.state()["mode"])),
                script=Script(keys=parse_keys("c@1.0,c@2")))
    modes = dict(seen)
    # a press at 1.0 s fires before step 31 (run time 30 x 1/30 s): after 30 steps, still mode 0
    assert modes[30] == "arrive at colour" and modes[31] == "arrive at motion"
    assert modes[60] == "arrive at motion" and modes[61] == "flock flees hand"
    assert host.sim_t == pytest.approx(62 * STEP_S)


def test_space_pauses_and_the_run_clock_keeps_going(play):
    host = play("sound_flier", 90, script=Script(keys=parse_keys("space@1,space@2")))
    assert host.frame_no == 90 and host.sim_t == pytest.approx(60 * STEP_S)


def test_pick_takes_the_colour_under_the_pixel_in_an_app_with_its_own_pick(play):
    host = play("color_ball", 45, script=Script(pick=PURPLE_BOOK))
    b, g, r = host.app.target_bgr
    assert r > g + 20 and b > g + 20, host.app.target_bgr                # purple, not the orange ball
    assert host.app.box is not None and host.app.box.collidepoint(
        host.app.camera_view.x + PURPLE_BOOK[0] * 2, host.app.camera_view.y + PURPLE_BOOK[1] * 2)


def test_pick_with_the_default_pick_color_moves_steers_target(play):
    before = play("steer", 45).app.state()["colour_at"]
    after = play("steer", 45, script=Script(pick=PURPLE_BOOK)).app.state()["colour_at"]
    view_x, view_y = PURPLE_BOOK[0] * 2, 44 + PURPLE_BOOK[1] * 2          # 320x240 shown at 640x480
    assert abs(after[0] - view_x) < 12 and abs(after[1] - view_y) < 12
    assert abs(before[0] - view_x) > 60                                    # the ball is elsewhere


def test_a_click_on_steer_picks_the_colour_too(play):
    host = play("steer", 3)
    view = host.app.camera_view
    host.click((view.x + PURPLE_BOOK[0] * 2, view.y + PURPLE_BOOK[1] * 2))
    for _ in range(30):
        host.step()
    at = host.app.state()["colour_at"]
    assert abs(at[0] - view.x - PURPLE_BOOK[0] * 2) < 12 and host.toast is not None


@pytest.mark.parametrize("args, message", [
    (["steer", "--mode", "dance"], "--mode 'dance': steer's modes are"),
    (["clapper", "--mode", "x"], "--mode: clapper has no modes"),
    (["steer", "--keys", "c@soon"], "--keys: the time in 'c@soon'"),
    (["steer", "--frames", "30", "--keys", "c@1"], "--keys: c@1 comes after the last step of the run, at 0.967 s"),
    (["steer", "--keys", "space@1"], "--keys leaves the app paused (1 x space)"),
    (["steer", "--pick", "400,10"], "--pick 400,10 is outside the 320x240 picture"),
    (["steer", "--pick", "12"], "--pick must be X,Y in whole pixels, got '12'"),
    (["edge_snow", "--pick", "10,10"], "--pick: edge_snow tracks no colour"),
])
def test_bad_values_are_one_line_errors(capsys, args, message):
    assert main(["run", *args, "--headless"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_the_cli_runs_a_scripted_session_and_saves_the_picture(tmp_path, capsys):
    shot = tmp_path / "collide.png"
    assert main(["run", "collide", "--headless", "--frames", "40", "--mode", "stars", "--keys", "c@1",
                 "--pick", f"{PURPLE_BOOK[0]},{PURPLE_BOOK[1]}", "--screenshot", str(shot)]) == 0
    assert "collide: 40 frames" in capsys.readouterr().out and shot.stat().st_size > 5000
