"""A real install: build the wheel and the sdist, install the wheel into a fresh venv outside the
checkout, and use it from another folder, as someone who installed the wheel would.

Not in the default run (it downloads nothing new, but installs every dependency into a new venv:
~1-3 min). CI runs it; so can you:

    .venv/bin/python -m pytest -m install            # needs `build` (in the [test] extra)

From the other folder it runs `sensekit apps` (all bundled apps listed), `sensekit run sound_flier
--headless --frames 60` (the bundled-recording fallback), every app headless on its bundled
recording, a user's app file, an app installed by another package through the `sensekit.apps`
entry points, and an example script; mypy --strict checks docs/RECORDING_FORMAT.md's replay test
against the wheel's type hints; the README's library example runs, and an extra is added with
the line the hints give there (`python -m pip install 'sensekit[midi]'`).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.install

REPO = Path(__file__).resolve().parents[1]
APPS = sorted(p.stem for p in (REPO / "apps").glob("*.py") if not p.name.startswith("_"))
DEMO_S = json.loads((REPO / "recordings" / "demo.skrec" / "meta.json").read_text())["duration_s"]
RECORDING_FILES = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "recordings").rglob("*") if p.is_file())


class Venv:
    """A venv with the wheel installed, used from a folder outside the checkout."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = root / "venv" / ("Scripts" if os.name == "nt" else "bin")
        self.python = self.bin / "python"
        self.elsewhere = root / "elsewhere"
        self.elsewhere.mkdir(exist_ok=True)
        drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "SENSEKIT_APPS_DIR", "SENSEKIT_RECORDINGS",
                "DISPLAY", "WAYLAND_DISPLAY")
        self.env = {k: v for k, v in os.environ.items() if k not in drop}
        self.env.update(PATH=f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}",
                        SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONNOUSERSITE="1")

    def run(self, *cmd: str | Path, env: dict[str, str] | None = None, timeout: float = 300) -> str:
        proc = subprocess.run([str(c) for c in cmd], cwd=self.elsewhere, env={**self.env, **(env or {})},
                              capture_output=True, text=True, timeout=timeout)
        assert proc.returncode == 0, f"{cmd}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"python -m build failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return out


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory) -> Venv:
    root = tmp_path_factory.mktemp("installed")
    assert REPO not in root.parents
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True, timeout=300)
    v = Venv(root)
    wheel = next(dist.glob("sensekit-*.whl"))
    v.run(v.python, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel, timeout=1200)
    return v


def test_the_wheel_holds_the_apps_and_the_demo(dist):
    names = zipfile.ZipFile(next(dist.glob("*.whl"))).namelist()
    assert {f"sensekit/apps/{a}.py" for a in APPS} <= set(names)
    assert {"sensekit/" + f for f in RECORDING_FILES} | {"sensekit/py.typed"} <= set(names)
    with tarfile.open(next(dist.glob("*.tar.gz"))) as sdist:
        members = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    assert {f"apps/{a}.py" for a in APPS} <= members and set(RECORDING_FILES) <= members
    assert {"docs/book.md", "docs/tutorial.md", "docs/OSC.md", "examples/double_clap.py"} <= members   # MANIFEST.in


def test_help_in_the_wheel_says_where_the_docs_it_names_are(venv):
    # the wheel has no docs/: `sensekit --help` sent its reader to docs/book.md, which was not there
    for argv in (["--help"], ["apps", "--help"]):
        text = " ".join(venv.run(venv.bin / "sensekit", *argv).split())
        assert "docs/" in text and " in sensekit's sources (its repository, or the sdist" in text, text


def test_the_wheel_holds_the_panel_page(dist, venv):
    names = set(zipfile.ZipFile(next(dist.glob("*.whl"))).namelist())
    page = {f"sensekit/panel/static/{f}" for f in ("index.html", "panel.js", "panel.css")}
    assert page <= names
    out = venv.run(venv.python, "-c", "from sensekit.panel.server import STATIC_DIR as s; "
                                      "print(s, all((s / f).is_file() for f in ('index.html', 'panel.js')))")
    assert out.split()[-1] == "True" and venv.root in Path(out.split()[0]).parents, out


def test_sensekit_is_imported_from_the_venv_not_the_checkout(venv):
    where = venv.run(venv.python, "-c", "import sensekit, sensekit.paths as p; print(sensekit.__file__); "
                                        "print(p.bundled_dir('apps')); print(p.recordings_dir())").split()
    for path in map(Path, where):
        assert venv.root in path.parents and REPO not in path.parents, where


def test_apps_lists_every_bundled_app(venv):
    out = venv.run("sensekit", "apps")
    listed = [line.split()[0] for line in out.splitlines() if line and not line.startswith("run one")]
    assert listed == APPS and len(APPS) == 9


def _has_live_devices(venv: Venv) -> bool:
    out = venv.run("sensekit", "devices")
    return out.count("none found") < 2


def test_sound_flier_falls_back_to_the_bundled_recording(venv):
    out = venv.run("sensekit", "run", "sound_flier", "--headless", "--frames", "60")
    assert "sound_flier: 60 frames" in out
    assert "bundled recording 'demo'" in out or _has_live_devices(venv), out


@pytest.mark.parametrize("app", APPS)
def test_each_app_runs_headless_on_its_bundled_recording(venv, app):
    shot = venv.elsewhere / f"{app}.png"
    source = ["--source", "demo"] if _has_live_devices(venv) else []     # a camera here would run live
    out = venv.run("sensekit", "run", app, "--headless", "--screenshot", shot, *source)
    simulated = float(re.search(rf"^{app}: \d+ frames, ([\d.]+) s simulated", out, re.M).group(1))
    assert simulated >= DEMO_S - 0.1, out                               # the whole recording
    assert shot.stat().st_size > 5000


def test_a_users_app_file_and_folder(venv):
    folder = venv.root / "my_apps"
    folder.mkdir(exist_ok=True)
    (folder / "my_app.py").write_text((REPO / "examples" / "custom_app.py").read_text())
    out = venv.run("sensekit", "run", folder / "my_app.py", "--headless", "--frames", "90")
    assert "my_app: 90 frames" in out
    listing = venv.run("sensekit", "apps", env={"SENSEKIT_APPS_DIR": str(folder)})
    assert any(line.startswith("my_app ") and "[SENSEKIT_APPS_DIR" in line for line in listing.splitlines())


def test_an_app_installed_by_another_package(venv):
    pkg = venv.root / "balloon_pkg"
    (pkg / "balloon_app").mkdir(parents=True, exist_ok=True)
    (pkg / "balloon_app" / "__init__.py").write_text("")
    (pkg / "balloon_app" / "balloon.py").write_text((REPO / "examples" / "custom_app.py").read_text())
    (pkg / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "balloon-app"\nversion = "1.0"\ndependencies = ["sensekit"]\n\n'
        '[project.entry-points."sensekit.apps"]\nballoon = "balloon_app.balloon:Balloon"\n')
    venv.run(venv.python, "-m", "pip", "install", "-q", "--disable-pip-version-check", pkg, timeout=600)
    listing = venv.run("sensekit", "apps")
    assert any(line.startswith("balloon ") and "entry point (balloon-app)" in line for line in listing.splitlines())
    assert "balloon: 60 frames" in venv.run("sensekit", "run", "balloon", "--headless", "--frames", "60")


def test_an_example_script_runs_against_the_installed_package(venv):
    out = venv.run(venv.python, REPO / "examples" / "double_clap.py")
    assert "12.25 s  double clap: light ON" in out


def test_the_readme_library_example_runs_against_the_wheel(venv):
    code = re.search(r"```python\n(.*?)```", (REPO / "README.md").read_text(), re.S).group(1)
    (venv.elsewhere / "ten_lines.py").write_text(code)
    assert "clap at 10.00 s, strength" in venv.run(venv.python, "ten_lines.py")


def test_an_extra_is_added_with_the_line_the_hints_give(venv):
    """The wheel's hints said `pip install -e '.[midi]'`, which needs a checkout; the wheel's own line
    works where the wheel is installed (pip finds sensekit there and fetches the extra alone)."""
    help_text = " ".join(venv.run("sensekit", "events", "--help").split())
    assert "voice (needs: python -m pip install 'sensekit[voice]')" in help_text and "pip install -e" not in help_text
    line = venv.run(venv.python, "-c", "from sensekit.installed import install_hint; print(install_hint('midi'))")
    assert line.strip() == "python -m pip install 'sensekit[midi]'"      # the venv's python first on its PATH
    venv.run(venv.python, *line.split()[1:4], "-q", "--disable-pip-version-check", "sensekit[midi]", timeout=600)
    assert venv.run(venv.python, "-c", "import mido, rtmidi; print('ok')").strip() == "ok"


def test_the_tutorial_works_in_a_venv_with_only_the_wheel(venv):
    """docs/tutorial.md outside the checkout: the wheel and pytest (as its install step says), no
    editable install, no test extra."""
    from tests.test_docs import run_the_tutorial

    venv.run(venv.python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "pytest", timeout=600)
    work = venv.root / "tutorial"
    work.mkdir(exist_ok=True)
    run_the_tutorial(work, bin_dir=venv.bin)


def test_the_documented_replay_test_type_checks_against_the_wheel(venv, tmp_path):
    """docs/RECORDING_FORMAT.md's test file passes ``mypy --strict`` against the installed wheel
    (its py.typed), from a folder outside the checkout: the test venv's mypy reads the wheel venv's
    site-packages through ``--python-executable``."""
    from tests.test_docs_replay_tests import _the_test_file

    project = venv.root / "replay_project"
    (project / "tests").mkdir(parents=True, exist_ok=True)
    (project / "tests" / "test_claps.py").write_text(_the_test_file())
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
                           str(tmp_path / "cache"), "--python-executable", str(venv.python), "tests/test_claps.py"],
                          cwd=project, env=venv.env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
