"""Finding apps: bundled, installed through the `sensekit.apps` entry points, SENSEKIT_APPS_DIR,
and app files run by path. Installed packages are real `.dist-info` folders on sys.path (what pip
lays down), not mocks of importlib.metadata."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from sensekit.app.registry import ENTRY_POINT_GROUP, discover, load, resolve
from sensekit.cli import main
from sensekit.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]

APP_SOURCE = '''\
"""{doc}"""
import pygame
from sensekit.app import App
from sensekit.audio.pipeline import AudioStage


class {cls}(App):
    title = "{cls}"
    needs = frozenset({{"audio"}})

    def stages(self):
        return [AudioStage()]

    def setup(self):
        self.levels_seen = 0
        self.on("level", self.count)

    def count(self, event):
        self.levels_seen += 1

    def draw(self, screen):
        screen.fill((0, 0, 0))
        self.draw_frame(screen, str(self.levels_seen))
'''


def write_app(folder: Path, stem: str, doc: str = "My app: counts levels.", cls: str = "MyApp") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.py"
    path.write_text(APP_SOURCE.format(doc=doc, cls=cls))
    return path


def install_dist(site: Path, dist: str, entry_points: dict[str, str], modules: dict[str, str]) -> None:
    """Lay down what `pip install` of a package declaring `sensekit.apps` entry points leaves."""
    info = site / f"{dist}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "\n".join(f"{k} = {v}" for k, v in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}\n")
    for rel, text in modules.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)


def _app_modules() -> dict[str, object]:
    return {m: mod for m, mod in sys.modules.items() if m.startswith(("thirdparty_apps", "sensekit_apps."))}


@pytest.fixture
def clean_env(monkeypatch):
    """The test's apps are forgotten afterwards, and the settings table is put back as it was.

    It dropped every app module from sys.modules and left the table as the test left it: the
    table kept the bundled apps' groups while nothing held the classes that declare them any
    more, so the garbage collector took those classes and a later test that looks for the class
    owning each group (tests/test_settings_declared_once.py) found ten groups without one."""
    import sensekit.settings.registry as table
    from sensekit.settings.declare import REGISTRY

    monkeypatch.delenv("SENSEKIT_APPS_DIR", raising=False)
    def app_groups() -> dict[str, Any]:
        return {s: g for s, g in REGISTRY.items() if g.module.startswith(("thirdparty_apps", "sensekit_apps."))}

    modules, groups, loaded = _app_modules(), app_groups(), dict(table._loaded)
    yield monkeypatch
    for name in _app_modules():
        del sys.modules[name]
    sys.modules.update(modules)
    for section in app_groups():
        del REGISTRY[section]
    REGISTRY.update(groups)
    table._loaded["apps"] = loaded["apps"]   # the table imports the apps again if they were not in it


def test_the_bundled_apps_are_the_files_in_apps(clean_env):
    bundled = {p.stem for p in (REPO / "apps").glob("*.py") if not p.name.startswith("_")}
    apps = discover()
    assert set(apps) == bundled and len(bundled) == 9
    assert {a.origin for a in apps.values()} == {"bundled"}


def test_sensekit_apps_dir_adds_apps_and_a_name_there_wins(clean_env, tmp_path, capsys):
    mine = tmp_path / "mine"
    write_app(mine, "my_app")
    write_app(mine, "steer", doc="My own steer.")
    other = tmp_path / "other"
    write_app(other, "second_app", doc="Second: from another folder.")
    clean_env.setenv("SENSEKIT_APPS_DIR", f"{mine}:{other}")
    apps = discover()
    assert apps["my_app"].origin == "SENSEKIT_APPS_DIR" and apps["second_app"].path.parent == other
    assert apps["steer"].description == "My own steer." and apps["color_ball"].origin == "bundled"
    assert main(["apps"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("my_app "))
    assert line.split(None, 1)[1] == f"My app: counts levels.  [SENSEKIT_APPS_DIR: {mine / 'my_app.py'}]"
    assert main(["run", "my_app", "--headless", "--frames", "30"]) == 0
    assert "my_app: 30 frames" in capsys.readouterr().out


def test_sensekit_apps_dir_that_is_not_a_folder_is_one_line(clean_env, tmp_path, capsys):
    clean_env.setenv("SENSEKIT_APPS_DIR", str(tmp_path / "nowhere"))
    assert main(["apps"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SENSEKIT_APPS_DIR names" in err and "not a folder" in err


def test_entry_point_apps_are_listed_and_run(clean_env, tmp_path, capsys):
    site = tmp_path / "site"
    app_module = APP_SOURCE.format(doc="Module doc.", cls="Hello").replace(
        'class Hello(App):\n', 'class Hello(App):\n    """Hello: an app from another package."""\n')
    install_dist(site, "thirdparty-apps",
                 {"hello": "thirdparty_apps.hello:Hello", "whole_module": "thirdparty_apps.whole",
                  "broken": "thirdparty_apps.missing:Nope"},
                 {"thirdparty_apps/__init__.py": "", "thirdparty_apps/hello.py": app_module,
                  "thirdparty_apps/whole.py": APP_SOURCE.format(doc="Whole: a module with one app.",
                                                                cls="Whole")})
    clean_env.syspath_prepend(str(site))
    apps = discover()
    assert apps["hello"].description == "Hello: an app from another package."
    assert apps["hello"].origin == "entry point (thirdparty-apps)"
    assert apps["whole_module"].description == "Whole: a module with one app."
    assert "cannot find module" in apps["broken"].description
    assert load("hello").__name__ == "Hello" and load("whole_module").name == "whole_module"
    assert main(["run", "hello", "--headless", "--frames", "20"]) == 0
    assert "hello: 20 frames" in capsys.readouterr().out
    assert main(["run", "broken", "--headless"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'thirdparty_apps.missing:Nope'" in err and "cannot be loaded" in err


def test_run_an_app_file_by_path_from_another_folder(clean_env, tmp_path, capsys):
    folder = tmp_path / "work"
    path = write_app(folder, "blinker")
    (folder / "helper_for_blinker.py").write_text("GREETING = 'hi'\n")
    path.write_text(path.read_text().replace("import pygame\n",
                                             "import pygame\nfrom helper_for_blinker import GREETING\n"))
    clean_env.chdir(tmp_path)
    shot = tmp_path / "shot.png"
    assert main(["run", "work/blinker.py", "--headless", "--frames", "15", "--screenshot", str(shot)]) == 0
    out = capsys.readouterr().out
    assert "blinker: 15 frames" in out and shot.is_file()


@pytest.mark.parametrize("content, expected", [
    (None, "app file 'gone.py' not found"),
    ("def broken(:\n", "line 1: syntax error"),
    # (with a class: a file that defines none is refused before it runs, see below)
    ("import no_such_module_here\n\n\nclass Lamp:\n    pass\n",
     "cannot import what it needs: No module named 'no_such_module_here'"),
    ("x = 1\n", "must define exactly one App subclass, found none"),
    # (a traceback from App.draw's NotImplementedError on the first frame, after the notice)
    ("from sensekit.app import App\n\n\nclass Lamp(App):\n    needs = frozenset({'audio'})\n",
     "Lamp must define draw(self, screen), the one hook every app writes"),
    # what the app cannot work without: "sound" and a bare string were a KeyError traceback when
    # the source was chosen, an empty set "no  found; playing the bundled recording"
    *[(f"from sensekit.app import App\n\n\nclass Lamp(App):\n    needs = {needs}\n\n"
       f"    def draw(self, screen):\n        pass\n",
       f"Lamp.needs must name what it cannot work without, frozenset({{\"audio\"}}), "
       f"frozenset({{\"video\"}}) or both; got {shown}")
      for needs, shown in (("frozenset({'sound'})", "frozenset({'sound'})"), ("'audio'", "'audio'"),
                           ("frozenset()", "frozenset()"))],
    # stages(): a bare stage was "TypeError: 'AudioStage' object is not iterable", a detector
    # "AttributeError: 'ClapDetector' object has no attribute 'consumes'", both from the runner
    *[(f"from sensekit.app import App\nfrom sensekit.audio.clap import ClapDetector\n"
       f"from sensekit.audio.pipeline import AudioStage\n\n\nclass Lamp(App):\n"
       f"    needs = frozenset({{'audio'}})\n\n    def stages(self):\n        return {made}\n\n"
       f"    def draw(self, screen):\n        pass\n", expected)
      for made, expected in (
          ("AudioStage()", "Lamp.stages() must return a list of stages, got AudioStage (return [AudioStage(...)])"),
          ("[ClapDetector()]", "Lamp.stages() returned ClapDetector, which is not a stage; detectors go inside "
                               "one: AudioStage(clap=ClapDetector())"))],
    # a typo in plus_minus ended the run with an error when + was first pressed
    ("from sensekit.app import App\n\n\nclass Lamp(App):\n    needs = frozenset({'audio'})\n"
     "    plus_minus = ('clap.min_levl', -1)\n\n    def draw(self, screen):\n        pass\n",
     "Lamp.plus_minus: unknown setting `clap.min_levl`; did you mean clap.min_level"),
    # a declaration the table refuses: the message did not say which file
    ("from sensekit.app import App\nfrom sensekit.settings import setting\n\n\n"
     "class Lamp(App, section='gone_lamp', title='a lamp'):\n    needs = frozenset({'audio'})\n"
     "    brightness = setting(20, 'how bright', lo=0, hi=10)\n\n    def draw(self, screen):\n        pass\n",
     "gone.py': `gone_lamp.brightness` must be a whole number 0..10, got 20"),
])
def test_bad_app_files_are_one_line_errors(clean_env, tmp_path, capsys, content, expected):
    clean_env.chdir(tmp_path)
    if content is not None:
        (tmp_path / "gone.py").write_text(content)
    assert main(["run", "gone.py", "--headless"]) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1, err


def test_two_app_classes_in_one_file_are_refused(clean_env, tmp_path):
    path = write_app(tmp_path, "two")
    path.write_text(path.read_text() + "\n\nclass Another(MyApp):\n    pass\n")
    with pytest.raises(ConfigError, match="exactly one App subclass, found MyApp, Another"):
        resolve(str(path))


def test_a_folder_is_not_an_app_file(clean_env, tmp_path):
    with pytest.raises(ConfigError, match="is a folder.*SENSEKIT_APPS_DIR"):
        resolve(str(tmp_path) + "/")


def test_unknown_name_with_a_file_of_that_name_says_how_to_run_it(clean_env, tmp_path, capsys):
    write_app(tmp_path, "mine")
    clean_env.chdir(tmp_path)
    assert main(["run", "mine", "--headless"]) == 2
    err = capsys.readouterr().err
    assert "no app named 'mine'" in err and "sensekit run ./mine.py" in err


@pytest.mark.parametrize("name, said", [
    ("my_apps", "('my_apps' is a folder here: to list and run the apps in it, set SENSEKIT_APPS_DIR=my_apps)"),
    ("notes.txt", "('notes.txt' is a file here, but an app file is Python, ending in .py)"),
])
def test_unknown_name_that_is_a_folder_or_file_here_says_what_it_is(name, said, clean_env, tmp_path,
                                                                    capsys):
    # both got the list of apps alone, as if the name were a typo
    (tmp_path / "my_apps").mkdir()
    (tmp_path / "notes.txt").write_text("hi\n")
    clean_env.chdir(tmp_path)
    assert main(["run", name, "--headless"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"sensekit: error: no app named '{name}'; the apps are:")
    assert err.rstrip("\n").endswith(said), err


def test_apps_help_documents_where_apps_come_from(capsys):
    assert main(["apps", "--help"]) == 0
    out = capsys.readouterr().out
    assert "SENSEKIT_APPS_DIR" in out and '[project.entry-points."sensekit.apps"]' in out
    assert "sensekit run path/to/my_app.py" in out


@pytest.mark.parametrize("script", ["motion_arrows.py", "double_clap.py", "osc_out.py"])
def test_an_example_script_is_refused_without_being_run(clean_env, capsys, script):
    """`sensekit run examples/osc_out.py` ran the script's top level: it read 'run' as its source
    ("no such file or recording: 'run'"), and osc_out would have sent OSC for the demo's 20 s
    first. A file that defines no class is refused before it runs, saying how scripts run."""
    clean_env.chdir(REPO)
    assert main(["run", f"examples/{script}", "--headless", "--frames", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file or recording" not in err, err
    assert f"found none (it defines no class; a script runs with `python examples/{script}`)" in err, err


def test_scripts_in_an_apps_folder_are_not_listed_as_apps(clean_env):
    """SENSEKIT_APPS_DIR=examples listed double_clap, motion_arrows and osc_out as apps (scripts,
    which `sensekit run NAME` then refused or ran); only the app files are listed now."""
    found = discover(REPO / "examples")
    assert set(found) == {"custom_app", "pitch_sprite", "track_click"}, sorted(found)


def test_the_settings_table_discovers_the_apps_once(clean_env, tmp_path, monkeypatch):
    """The complete settings table (the panel's, `sensekit settings`') imports every app; it
    discovered all apps again for each one (1 + 10 scans, each parsing every file of apps/ and
    SENSEKIT_APPS_DIR twice): about 1.3 of the 2.4 s before `--panel` said its address."""
    import sensekit.app.registry as registry

    write_app(tmp_path / "mine", "counter")
    clean_env.setenv("SENSEKIT_APPS_DIR", str(tmp_path / "mine"))
    scans: list[Path] = []
    real = registry._folder_apps
    monkeypatch.setattr(registry, "_folder_apps", lambda folder, origin: scans.append(folder) or real(folder, origin))
    loaded: list[str] = []
    real_path = registry.load_path
    monkeypatch.setattr(registry, "load_path", lambda path, **kw: loaded.append(path.stem) or real_path(path, **kw))
    registry.load_app_settings()
    assert scans == [registry.apps_dir(), tmp_path / "mine"], scans          # one discovery
    assert sorted(loaded) == sorted(discover()) and "counter" in loaded        # every app still imported


def test_an_edited_copy_of_a_bundled_app_run_by_path_stands_in_for_it(clean_env, tmp_path, capsys):
    """Copy apps/sound_flier.py, change a default, run the copy with --set of its section: --set
    loads the table (the bundled sound_flier's settings) before the file is loaded, and the copy's
    declaration was refused as 'settings section `sound_flier` is declared twice, differently'
    naming the same title twice. The file run by path stands in, as a later app of the same name
    does in `sensekit apps`."""
    from sensekit.settings.declare import REGISTRY
    from sensekit.settings.registry import lookup

    source = (REPO / "apps" / "sound_flier.py").read_text()
    assert "gravity = setting(1.2," in source
    copy = tmp_path / "my_flier.py"
    copy.write_text(source.replace("gravity = setting(1.2,", "gravity = setting(0.8,"))
    try:
        assert lookup("sound_flier.gravity").default == 1.2               # the bundled one, loaded
        assert main(["run", str(copy), "--headless", "--frames", "3", "--set", "sound_flier.gravity=1"]) == 0
        assert lookup("sound_flier.gravity").default == 0.8               # the copy's, standing in
        assert main(["settings", str(copy)]) == 0
        assert "sound_flier.gravity = 0.8 px/step²" in capsys.readouterr().out
    finally:                                   # the bundled app's own declaration back
        REGISTRY.pop("sound_flier", None)
        REGISTRY["sound_flier"] = load("sound_flier").SETTINGS


def test_zz_after_the_tests_above_each_group_of_the_table_has_its_class(clean_env):
    """Runs last in this file, after every test that used clean_env: each group of the table is
    still the SETTINGS of a live class (the tests above let the bundled apps' classes go while
    the table kept their groups; 10 groups had no class)."""
    import gc

    from sensekit.settings import Tunable, load_table

    gc.collect()
    table = load_table()

    def subclasses(cls: type) -> list[type]:
        return [s for sub in cls.__subclasses__() for s in (sub, *subclasses(sub))]

    groups = [c.__dict__["SETTINGS"] for c in subclasses(Tunable) if "SETTINGS" in c.__dict__]
    owned = {g.section for g in groups if table.get(g.section) is g}
    orphans = sorted(s for s in table if s not in owned and not s.startswith("test_"))
    assert not orphans, f"groups whose class is gone: {orphans}"
