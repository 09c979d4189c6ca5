"""What the wheel will hold, checked without building it (tests/test_install.py builds it).

pyproject.toml lists the packages by hand, because it maps the top-level apps/ and recordings/
folders into the package: a new subpackage of sensekit that is not listed would be missing from
the wheel while every test in the checkout still passes. These tests catch that, and a bundled
file that the package-data globs would leave out.
"""
from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

from sensekit import paths

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_subpackage_of_sensekit_is_listed():
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "sensekit").rglob("__init__.py")
             if "__pycache__" not in p.parts}
    listed = set(CONFIG["packages"])
    assert found <= listed, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(found - listed)}"


def test_apps_and_recordings_are_mapped_into_the_package():
    assert CONFIG["package-dir"] == {"sensekit.apps": "apps", "sensekit.recordings": "recordings"}
    assert {"sensekit.apps", "sensekit.recordings"} <= set(CONFIG["packages"])


def test_every_bundled_recording_file_matches_the_package_data_globs():
    globs = CONFIG["package-data"]["sensekit.recordings"]
    files = [p.relative_to(REPO / "recordings").as_posix() for p in (REPO / "recordings").rglob("*")
             if p.is_file() and "__pycache__" not in p.parts]
    left_out = [f for f in files if not any(fnmatch.fnmatch(f, g) and f.count("/") == g.count("/")
                                            for g in globs)]
    assert files and not left_out, f"not shipped in the wheel: {left_out}"


def test_a_checkout_reads_the_top_level_folders(monkeypatch):
    monkeypatch.delenv("SENSEKIT_RECORDINGS", raising=False)
    assert paths.bundled_dir("apps") == REPO / "apps"
    assert paths.recordings_dir() == REPO / "recordings"


def test_an_installed_layout_reads_the_folders_inside_the_package(tmp_path, monkeypatch):
    package = tmp_path / "site-packages" / "sensekit"
    (package / "apps").mkdir(parents=True)
    (package / "recordings" / "demo.skrec").mkdir(parents=True)
    (package / "recordings" / "demo.skrec" / "meta.json").write_text("{}")
    monkeypatch.setattr(paths, "PACKAGE_DIR", package)
    monkeypatch.delenv("SENSEKIT_RECORDINGS", raising=False)
    assert paths.bundled_dir("apps") == package / "apps"
    assert paths.bundled_recording("demo") == package / "recordings" / "demo.skrec"


def test_the_panel_page_files_match_the_package_data_globs():
    assert "sensekit.panel.static" in CONFIG["packages"]
    globs = ["static/" + g for g in CONFIG["package-data"]["sensekit.panel.static"]]
    static = REPO / "sensekit" / "panel" / "static"
    files = [p.relative_to(static.parent).as_posix() for p in static.rglob("*") if p.is_file()]
    left_out = [f for f in files if not any(fnmatch.fnmatch(f, g) and f.count("/") == g.count("/")
                                            for g in globs)]
    assert {"static/index.html", "static/panel.js", "static/panel.css", "static/video.js"} <= set(files)
    assert not left_out, f"not shipped in the wheel: {left_out}"


def test_the_package_ships_its_type_hints():
    assert (REPO / "sensekit" / "py.typed").is_file()
    assert "py.typed" in CONFIG["package-data"]["sensekit"]
