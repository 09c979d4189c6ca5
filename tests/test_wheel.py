"""The wheel holds everything the apps and the demo need at run time, checked on a real wheel.

tests/test_packaging.py reads pyproject.toml without building; tests/test_install.py installs the
wheel in a fresh venv (minutes; `pytest -m install`). This module builds the wheel once
(``pip wheel --no-deps`` of a copy of the package trees, ~5-10 s) and checks what is inside it, so
a bundled file that a package-data entry leaves out fails the ordinary run:

- every file of the trees the wheel installs (``sensekit/``, and ``apps/``, ``recordings/`` as
  ``sensekit/apps/``, ``sensekit/recordings/``) is in it, at its installed place;
- every file of the checkout that every app, run headless, and ``sensekit events demo`` open
  (an audit hook records Python's opens; OpenCV opens ``video.mkv`` natively, the first check
  covers it) is in it, so a file read from outside those trees fails too;
- the panel's page and every file it loads, the ``sensekit`` command and the extras the
  install hints name;
- installed from the wheel (``pip install --target``), the hints say the wheel's install line.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
#: folder in the checkout -> folder in the wheel ("apps" -> "sensekit/apps")
TREES = {"sensekit": "sensekit", **{folder: package.replace(".", "/")
                                    for package, folder in PYPROJECT["tool"]["setuptools"]["package-dir"].items()}}
APPS = sorted(p.stem for p in (REPO / "apps").glob("*.py") if not p.name.startswith("_"))
SKIP = shutil.ignore_patterns("__pycache__", "*.py[cod]", "*.egg-info")

#: records every file under the checkout that Python opens while the apps and the demo run
AUDIT = """
import contextlib, io, json, os, sys
from pathlib import Path

repo, apps = Path(sys.argv[1]), sys.argv[2].split(",")
opened = set()

def hook(event, args):
    if event != "open" or not isinstance(args[0], (str, bytes, os.PathLike)):
        return
    path = Path(os.path.abspath(os.fsdecode(args[0])))
    if repo in path.parents:
        opened.add(path.relative_to(repo).as_posix())

sys.addaudithook(hook)
from sensekit.cli import main

runs = [["run", app, "--headless", "--frames", "3"] for app in apps]
runs.append(["events", "demo", "--clap", "--motion", "--jsonl", "--max-items", "60"])
for argv in runs:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == 0, argv
print(json.dumps(sorted(opened)))
"""


def _in_wheel(path: str) -> str | None:
    """Where the checkout's ``path`` (relative, posix) is installed, or None outside the trees."""
    top, _, rest = path.partition("/")
    return f"{TREES[top]}/{rest}" if top in TREES and rest else None


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("wheel")
    for name in ("pyproject.toml", "README.md", "MANIFEST.in"):
        shutil.copy2(REPO / name, src / name)
    for folder in TREES:                      # a copy: the build writes build/ and *.egg-info beside it
        shutil.copytree(REPO / folder, src / folder, ignore=SKIP)
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check",
                           "-q", "-w", str(out), str(src)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"pip wheel failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    (found,) = out.glob("sensekit-*.whl")
    return found


@pytest.fixture(scope="module")
def names(wheel) -> set[str]:
    return set(zipfile.ZipFile(wheel).namelist())


def test_every_file_of_the_package_trees_is_in_the_wheel(names):
    files = [p.relative_to(REPO).as_posix() for folder in TREES for p in (REPO / folder).rglob("*")
             if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo")]
    assert {"apps/sound_flier.py", "recordings/demo.skrec/video.mkv", "recordings/demo.truth.json",
            "sensekit/panel/static/index.html", "sensekit/py.typed"} <= set(files)
    missing = [f for f in files if _in_wheel(f) not in names]
    assert not missing, f"not in the wheel (a package-data entry in pyproject.toml?): {missing}"


def test_every_file_the_apps_and_the_demo_open_is_in_the_wheel(names, tmp_path):
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    env.pop("SENSEKIT_RECORDINGS", None)
    env.pop("SENSEKIT_APPS_DIR", None)
    proc = subprocess.run([sys.executable, "-c", AUDIT, str(REPO), ",".join(APPS)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    opened = json.loads(proc.stdout.splitlines()[-1])
    ours = [f for f in opened if "site-packages" not in f and "__pycache__" not in f
            and not f.startswith(".venv") and f != "pyproject.toml"]   # sensekit.installed reads it
    assert "recordings/demo.skrec/audio.wav" in ours and "apps/steer.py" in ours, ours
    missing = [f for f in ours if _in_wheel(f) not in names]
    assert not missing, f"the apps or the demo read files the wheel does not hold: {missing}"


def test_the_panel_page_and_everything_it_loads_are_in_the_wheel(names, wheel):
    static = "sensekit/panel/static/"
    with zipfile.ZipFile(wheel) as z:
        texts = {n: z.read(n).decode() for n in names if n.startswith(static) and n.endswith((".html", ".js"))}
    assert static + "index.html" in texts
    refs = r'(?:src|href)="/static/([^"]+)"|from\s+["\']\./([^"\']+)["\']'   # the page's tags, the modules' imports
    loads = {static + name for text in texts.values() for pair in re.findall(refs, text) for name in pair if name}
    assert static + "panel.js" in loads and len(loads) >= 4, loads
    assert not loads - names, f"the panel loads files the wheel does not hold: {sorted(loads - names)}"


def test_the_wheel_has_the_command_and_the_extras_the_hints_name(wheel):
    with zipfile.ZipFile(wheel) as z:
        info = next(n.split("/")[0] for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        entry_points = z.read(f"{info}/entry_points.txt").decode()
        metadata = z.read(f"{info}/METADATA").decode()
    assert re.search(r"^sensekit = sensekit\.cli:main$", entry_points, re.M), entry_points
    extras = set(re.findall(r"^Provides-Extra: (\S+)$", metadata, re.M))
    assert {"hands", "voice", "midi", "salient"} <= extras, extras


def test_installed_from_the_wheel_the_hints_say_the_wheels_install_line(wheel, tmp_path):
    """``pip install -e '.[voice]'`` asks a wheel user for a checkout they do not have."""
    target, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    elsewhere.mkdir()
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check",
                    "--target", str(target), str(wheel)], check=True, capture_output=True, timeout=300)
    env = {**os.environ, "PYTHONPATH": str(target), "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    where = subprocess.run([sys.executable, "-c", "import sensekit, sensekit.installed as i; "
                            "print(sensekit.__file__, i.from_checkout(), i.install_hint('midi'))"],
                           cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120, check=True).stdout
    from sensekit.installed import python_command     # the same interpreter and PATH as the child's

    assert where.split(maxsplit=2) == [str(target / "sensekit" / "__init__.py"), "False",
                                       f"{python_command()} -m pip install 'sensekit[midi]'\n"], where
    text = " ".join(subprocess.run([sys.executable, "-m", "sensekit", "events", "--help"], cwd=elsewhere, env=env,
                                   capture_output=True, text=True, timeout=120, check=True).stdout.split())
    for extra in ("hands", "voice"):
        assert f"(needs: {python_command()} -m pip install 'sensekit[{extra}]')" in text, text
    assert "pip install -e" not in text
