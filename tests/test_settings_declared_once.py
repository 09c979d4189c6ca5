"""Every setting has one home: its declaration, a typed class attribute of the class that owns it.

The checks read every group of the table (the library's and the bundled apps') and every class
that has settings, and fail on a second home: a typed re-declaration (``threshold: float`` in the
class or a base), another attribute or property under a setting's name, a mapping of names to
other attributes (``SETTING_ATTRS``), an override of how settings are stored or read, a method of
the class that assigns ``self.<setting>`` (only ``Tuning.apply`` / ``init_settings`` write them),
or a ``Protocol`` that repeats a group's settings as typed attributes. The last tests build
throw-away classes that break each rule and show that the check fails on them.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap
from collections.abc import Iterator
from typing import Any, ClassVar, Protocol

import pytest

from sensekit.settings import Setting, Tunable, load_table, setting
from sensekit.settings.declare import REGISTRY, Group

#: modules that run something when imported
_SKIP = {"sensekit.__main__", "sensekit.osc.__main__"}


def _import_everything() -> list[Any]:
    """Import every module of the package (and, through the table, the bundled apps)."""
    import sensekit
    import sensekit.app.registry   # adds the apps' finder to the table, as the CLI does

    modules = []
    for info in pkgutil.walk_packages(sensekit.__path__, "sensekit."):
        if info.name not in _SKIP:
            modules.append(importlib.import_module(info.name))
    load_table()
    return modules


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _owned_classes() -> dict[str, type[Tunable]]:
    """Section -> the class whose class line named it (the one that holds the declarations)."""
    out: dict[str, type[Tunable]] = {}
    for cls in _subclasses(Tunable):
        group = cls.__dict__.get("SETTINGS")
        if isinstance(group, Group) and REGISTRY.get(group.section) is group:
            out[group.section] = cls
    return out


def _self_writes(klass: type, names: set[str]) -> list[str]:
    """``self.<name> = ...`` (also ``+=`` and annotated) in the methods of ``klass``."""
    try:
        source = textwrap.dedent(inspect.getsource(klass))
    except (OSError, TypeError):
        return [f"{klass.__name__}: source not found (cannot check its methods)"]
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for t in ast.walk(target):
                if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                        and t.attr in names):
                    found.append(f"{klass.__name__} line {node.lineno}: self.{t.attr} = ... "
                                 f"(a setting is written only through the table)")
    return found


def second_homes(cls: type[Tunable]) -> list[str]:
    """Every place besides its declaration where a setting of ``cls`` lives; ``[]`` when none."""
    group = cls.SETTINGS
    names = set(group.names)
    problems: list[str] = []
    owner = next((k for k in cls.__mro__ if k.__dict__.get("SETTINGS") is group), cls)
    for s in group.items:
        if owner.__dict__.get(s.name) is not s:
            problems.append(f"{owner.__name__}.{s.name} is not the declaration of `{s.key}`")
    for klass in cls.__mro__:
        if klass in (Tunable, object) or klass.__module__ in ("typing", "builtins"):
            continue
        problems += _class_homes(klass, group.section, names)
        problems += _self_writes(klass, names)
    return problems


def _class_homes(klass: type, section: str, names: set[str]) -> list[str]:
    """What one class of the MRO declares under a setting's name besides the declaration."""
    problems: list[str] = []
    for name, hint in inspect.get_annotations(klass).items():
        # ``low: Setting[float] = setting(...)`` types the declaration itself; anything else
        # under a setting's name is a second, typed home
        declaring = isinstance(klass.__dict__.get(name), Setting) and str(hint).startswith("Setting[")
        if name in names and not declaring:
            problems.append(f"{klass.__name__} re-declares `{section}.{name}` as a typed attribute")
    for name in names & set(klass.__dict__):
        if not isinstance(klass.__dict__[name], Setting):
            problems.append(f"{klass.__name__}.{name} is another attribute under the name of `{section}.{name}`")
    if "SETTING_ATTRS" in klass.__dict__:
        problems.append(f"{klass.__name__}.SETTING_ATTRS stores settings under other names")
    for hook in ("_store_setting", "_read_setting"):
        if hook in klass.__dict__:
            problems.append(f"{klass.__name__}.{hook} keeps settings somewhere else")
    return problems


def protocol_repeats(protocol: type, groups: list[Group]) -> list[str]:
    """A ``Protocol`` whose typed attributes repeat two or more settings of one group."""
    own = set(inspect.get_annotations(protocol))
    return [f"{protocol.__name__} repeats {sorted(own & set(g.names))} of [{g.section}]"
            for g in groups if len(own & set(g.names)) >= 2]


def _protocols(modules: list[Any]) -> list[type]:
    out = []
    for module in modules:
        for value in vars(module).values():
            if (inspect.isclass(value) and value.__module__ == module.__name__ and Protocol in value.__mro__
                    and getattr(value, "_is_protocol", False)):
                out.append(value)
    return out


# --- the real table ---------------------------------------------------------------------

def test_every_group_is_declared_by_one_class_and_nowhere_else():
    _import_everything()
    owners = _owned_classes()
    sections = sorted(s for s in REGISTRY if not s.startswith("test_"))
    assert len(sections) >= 20                          # the library's groups and the bundled apps'
    missing = [s for s in sections if s not in owners]
    assert not missing, f"groups declared outside a Tunable class: {missing}"
    problems = [p for s in sections for p in second_homes(owners[s])]
    assert not problems, "\n".join(problems)


def test_every_subclass_of_a_class_with_settings_keeps_them_in_one_home():
    _import_everything()
    classes = [c for c in _subclasses(Tunable) if getattr(c, "SETTINGS", None) is not None
               and not c.SETTINGS.section.startswith("test_")]
    assert len(classes) >= 20
    problems = [p for c in classes for p in second_homes(c)]
    assert not problems, "\n".join(problems)


def test_no_protocol_repeats_the_settings_of_a_group():
    modules = _import_everything()
    groups = [g for s, g in REGISTRY.items() if not s.startswith("test_")]
    protocols = _protocols(modules)
    assert protocols                                  # Host, Stage, Clock... are read
    problems = [p for proto in protocols for p in protocol_repeats(proto, groups)]
    assert not problems, "\n".join(problems)


def test_the_colour_models_settings_are_declared_with_the_model_and_typed():
    from sensekit.vision.color_model import ModelSettings
    from sensekit.vision.color_tracker import ColorTracker

    assert ColorTracker.SETTINGS["search"] is ColorTracker.search and ColorTracker.search.key == "tracker.search"
    assert isinstance(ModelSettings.__dict__["search"], Setting)
    assert ColorTracker.SETTINGS.names[-1] == "appearance_found"          # the group's order is kept
    assert ColorTracker().search == 2.0 and ColorTracker(search=3).search == 3.0


# --- the checks can fail ----------------------------------------------------------------

@pytest.fixture
def throwaway() -> Iterator[str]:
    """A section for classes built in a test; taken out of the table afterwards."""
    yield "test_throwaway"
    REGISTRY.pop("test_throwaway", None)


def test_a_typed_redeclaration_is_found(throwaway: str):
    class Meter(Tunable, section=throwaway, title="a throw-away meter"):
        low = setting(10.0, "low mark", lo=0, hi=100)

    assert second_homes(Meter) == []

    class TypedMeter(Meter):
        low: float                                  # the second home the issue removed

    assert second_homes(TypedMeter) == [f"TypedMeter re-declares `{throwaway}.low` as a typed attribute"]


def test_an_attribute_under_a_settings_name_is_found(throwaway: str):
    class Meter(Tunable, section=throwaway, title="a throw-away meter"):
        threshold = setting(3, "declared threshold", lo=1, hi=9)

    class InUse(Meter):
        @property
        def threshold(self) -> int:                 # type: ignore[override]  # one name, two meanings
            return 5

    assert any("InUse.threshold is another attribute" in p for p in second_homes(InUse))


def test_storing_a_setting_under_another_name_is_found(throwaway: str):
    class Meter(Tunable, section=throwaway, title="a throw-away meter"):
        level = setting(1.0, "level", lo=0, hi=100)
        SETTING_ATTRS: ClassVar[dict[str, str]] = {"level": "seeded_level"}

        def _store_setting(self, name: str, value: Any) -> None:
            setattr(self, "seeded_" + name, value)

    problems = second_homes(Meter)
    assert any("SETTING_ATTRS" in p for p in problems) and any("_store_setting" in p for p in problems)


def test_a_method_writing_a_setting_is_found(throwaway: str):
    class Meter(Tunable, section=throwaway, title="a throw-away meter"):
        patch_px = setting(9, "patch", lo=1, hi=255)

        def __init__(self) -> None:
            self.init_settings()

        def pick(self) -> None:
            keep, self.patch_px = self.patch_px, 3       # a second writer
            self.patch_px = keep

    problems = second_homes(Meter)
    assert len(problems) == 2 and all("self.patch_px = ..." in p for p in problems)


def test_a_protocol_repeating_settings_is_found(throwaway: str):
    class Meter(Tunable, section=throwaway, title="a throw-away meter"):
        low = setting(10.0, "low mark", lo=0, hi=100)
        high = setting(90.0, "high mark", lo=0, hi=100)

    class MeterSettings(Protocol):
        low: float
        high: float

    assert protocol_repeats(MeterSettings, [Meter.SETTINGS]) == [
        f"MeterSettings repeats ['high', 'low'] of [{throwaway}]"]


def test_a_subclass_naming_its_own_section_takes_its_bases_settings_along(throwaway: str):
    class Meter(Tunable, section=throwaway, title="a throw-away meter"):
        low = setting(10.0, "low mark", lo=0, hi=100)

    try:
        class LoudMeter(Meter, section=f"{throwaway}_loud", title="a louder one"):
            boost = setting(2.0, "boost", lo=0, hi=10)

        assert LoudMeter.SETTINGS.names == ("boost", "low") and Meter.SETTINGS.names == ("low",)
        assert LoudMeter.low.key == f"{throwaway}_loud.low" and Meter.low.key == f"{throwaway}.low"
        assert second_homes(LoudMeter) == [] and second_homes(Meter) == []
    finally:
        REGISTRY.pop(f"{throwaway}_loud", None)


def test_settings_without_a_section_or_read_too_early_are_clear_errors(throwaway: str):
    from sensekit.errors import ConfigError

    with pytest.raises(ConfigError, match="declares settings but names no section"):
        class NoSection(Tunable):
            low = setting(10.0, "low mark")

    class Meter(Tunable, section=throwaway, title="a throw-away meter"):
        low = setting(10.0, "low mark", lo=0, hi=100)

    with pytest.raises(AttributeError, match=f"`{throwaway}.low` of Meter read before init_settings"):
        print(Meter().low)
    m = Meter()
    m.init_settings(low=20)
    assert m.low == 20.0 and Meter.low.default == 10.0 and Meter.low.key == f"{throwaway}.low"
