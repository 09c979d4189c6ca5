"""The table of settings is built from the stage modules themselves: a stage module in a stage
package registers its group without being listed anywhere else."""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from sensekit.settings import Tunable, load_table
from sensekit.settings.declare import REGISTRY
from sensekit.settings.registry import STAGE_PACKAGES, import_stage_modules, library_sections

#: the sections sensekit's stages declared when the table was a hand-kept list of 14 modules
LISTED_BEFORE = {"activity", "audio", "background", "blobs", "clap", "hands", "motion", "noise_floor",
                 "pitch", "pose", "silhouette", "tracker", "vision", "voice"}


def test_the_library_table_still_holds_every_section_the_list_named():
    load_table(apps=False)
    assert set(library_sections()) >= LISTED_BEFORE


def test_every_tunable_class_of_the_stage_packages_is_in_the_library_table():
    modules = import_stage_modules()
    assert "sensekit.vision.motion" in modules and "sensekit.audio.clap" in modules
    declared = {cls.SETTINGS.section for cls in _tunables(Tunable)
                if cls.__module__.startswith(STAGE_PACKAGES) and "SETTINGS" in vars(cls)}
    assert declared == set(library_sections())


def test_a_new_stage_module_registers_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    package = tmp_path / "more_stages_x"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "demo_stage.py").write_text(textwrap.dedent('''
        from sensekit.settings import Tunable, setting

        class DemoStage(Tunable, section="demo_stage_x", title="a stage only this test declares"):
            gain = setting(1.0, "how much", lo=0.0, hi=4.0)
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert import_stage_modules(("more_stages_x",)) == ["more_stages_x.demo_stage"]
        assert REGISTRY["demo_stage_x"].module == "more_stages_x.demo_stage"
        assert [s.key for s in REGISTRY["demo_stage_x"].items] == ["demo_stage_x.gain"]
    finally:                                        # the test's stage leaves the table with it
        REGISTRY.pop("demo_stage_x", None)
        for name in ("more_stages_x.demo_stage", "more_stages_x"):
            sys.modules.pop(name, None)


def _tunables(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_tunables(sub)]
    return out
