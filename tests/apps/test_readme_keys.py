"""The README's promise, tried on every bundled app: "Keys in every app: `space` pause, `s`
screenshot, `r` restart, `esc` quit, `+`/`-` sensitivity, `Shift+S` save the venue profile;
click an object on the camera view to track it."

Each app runs headless on its own bundled recording; every key is pressed as a user would
(``AppHost.press``, the same path as a real key event) and what it promised is checked, not
only that nothing raised.
"""
from __future__ import annotations

import pygame
import pytest

from sensekit.app.host import AppHost, RunOptions
from sensekit.app.registry import apps_dir, discover, load
from sensekit.app.sources import bundled_source
from sensekit.errors import SensekitError
from sensekit.paths import recordings_dir

BUNDLED = sorted(name for name, info in discover().items() if info.path is None or
                 info.path.parent == apps_dir())


@pytest.mark.parametrize("name", BUNDLED)
def test_every_key_the_readme_names_does_what_it_says(name, tmp_path):
    if not (recordings_dir() / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording recordings/demo.skrec not generated (python -m sensekit.synth)")
    try:
        app_cls = load(name)
        source = bundled_source(app_cls)
    except SensekitError as exc:            # pinch_toss without the hands extra, say
        pytest.skip(f"{name}: {exc}")
    source.open()
    profile = tmp_path / "venue.toml"
    try:
        try:
            host = AppHost(app_cls, source, RunOptions(headless=True, screenshot_dir=tmp_path,
                                                       profile_path=profile))
        except SensekitError as exc:
            pytest.skip(f"{name}: {exc}")
        for _ in range(20):
            host.step()

        # space pauses: the game's time stands still, then goes on
        host.press(pygame.K_SPACE)
        t = host.sim_t
        for _ in range(5):
            host.step()
        assert host.paused and host.sim_t == t, name
        host.press(pygame.K_SPACE)
        host.step()
        assert not host.paused and host.sim_t > t, name

        # + and - move the app's sensitivity one step each way (and say so)
        said = []
        for key in (pygame.K_PLUS, pygame.K_MINUS):
            host.press(key)
            said.append(host.toast[0] if host.toast else None)
        assert all(said) and said[0] != said[1], (name, said)

        # s saves a screenshot that is a picture of the window
        host.press(pygame.K_s)
        shots = list(tmp_path.glob("*.png"))
        assert len(shots) == 1 and pygame.image.load(str(shots[0])).get_size() == host.screen.get_size()

        # Shift+S saves the venue profile
        host.press(pygame.K_s, pygame.KMOD_SHIFT)
        host.wait_for_save()                    # written off the run's thread
        assert profile.is_file() and profile.stat().st_size > 0, (name, host.toast)

        # a click on the camera view picks what is there (apps that show the camera)
        view = host.app.camera_view
        if view is not None and getattr(host.app, "pick_color", None) is not None:
            host.click(view.center)
            host.step()

        # r restarts and the game goes on
        host.press(pygame.K_r)
        for _ in range(5):
            host.step()
        assert not host.quit

        # esc quits
        host.press(pygame.K_ESCAPE)
        assert host.quit, name
        host.close()
    finally:
        source.close()


def test_the_c_key_does_what_the_apps_page_says(play):
    """docs/apps.md listed `c` among the keys of every app as "recalibrate the noise floor";
    six of the nine answered "nothing to recalibrate" and steer and collide change mode."""
    import re

    from tests.markdown_commands import REPO

    text = " ".join((REPO / "docs" / "apps.md").read_text().split())
    m = re.search(r"`c` measures the noise floor again \(([^)]*)\) or moves to the next mode \(([^)]*)\); "
                  r"the other apps answer that there is nothing to recalibrate", text)
    assert m, "docs/apps.md no longer says what `c` does"
    floor, modes = (set(group.split(", ")) for group in m.groups())
    for name in BUNDLED:
        if name == "pinch_toss":
            continue                             # needs the hands extra to be itself
        host = play(name, 5)
        host.press(pygame.K_c)
        said = host.toast[0] if host.toast else ""
        if name in floor:
            assert "noise" in said, (name, said)
        elif name in modes:
            assert said.startswith(("behaviour:", "scene:")), (name, said)
        else:
            assert said == "nothing to recalibrate", (name, said)


def test_a_click_tracks_in_the_apps_the_apps_page_names(play):
    """docs/apps.md: a click tracks an object in the apps it names; the others say they track
    none (they used to do nothing, silently)."""
    import re

    from tests.markdown_commands import REPO

    text = " ".join((REPO / "docs" / "apps.md").read_text().split())
    m = re.search(r"to track it in the apps that track one \(([^;]*);", text)
    assert m, "docs/apps.md no longer says which apps track a click"
    tracking = set(m.group(1).split(", "))
    for name in BUNDLED:
        if name == "pinch_toss":
            continue                             # needs the hands extra to be itself
        host = play(name, 5)
        view = host.app.camera_view
        if view is None:
            assert name not in tracking, name    # no picture to click
            continue
        host.click(view.center)
        said = host.toast[0] if host.toast else ""
        assert said.startswith("tracking") == (name in tracking), (name, said)
        assert said.startswith("tracking") or said.endswith("tracks no object: a click or a drag picks only in "
                                                             "an app that does"), (name, said)
