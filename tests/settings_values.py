"""Valid values for any declared setting, made from its declaration (for round-trip tests).

``other_value(setting)`` is a valid value different from the default, chosen from the
declaration alone (the middle of a range, another choice, the other switch position, a colour,
a zone), so a test that round-trips it through an adapter cannot pass by returning defaults.
``joint_values(group)`` gives one such value per setting of a group that also satisfies the
group's cross-setting rule (a few settings keep their default where the rule needs it).
"""
from __future__ import annotations

from typing import Any

from sensekit.errors import ConfigError
from sensekit.settings.declare import Group, Setting


#: kinds whose other value does not depend on the declaration's range
FIXED = {"words": ("left", "right", "jump"),
         "numbers": tuple(float(i % 7 + 1) for i in range(50)),   # clap.venue_model: 50 numbers, scales > 0
         "zones": {"door": (0.0, 0.125, 0.25, 0.75), "top right": (0.5, 0.0, 0.5, 0.5)}}


def other_value(s: Setting) -> Any:
    if s.kind in FIXED:
        return FIXED[s.kind] if s.default != FIXED[s.kind] else ("up",)
    if s.kind == "bool":
        return not s.default
    if s.kind == "choice":
        return next(c for c in s.choices if c != s.default)
    if s.kind == "color":
        return "#12ab9f" if s.default != "#12ab9f" else "#00ff00"
    lo = s.lo if s.lo is not None else 0.0
    hi = s.hi if s.hi is not None else lo + 100.0
    if s.default is None:
        value = lo + (hi - lo) * 0.375
    else:
        value = float(s.default) + (hi - float(s.default)) * 0.25
        if value == s.default:
            value = float(s.default) - (float(s.default) - lo) * 0.25
    if s.kind == "int":
        value = round(value)
        if value == s.default:
            value = value + 1 if value + 1 <= hi else value - 1
        return int(value)
    return round(value, 3)


def joint_values(group: Group) -> dict[str, Any]:
    """``{name: value}``: a non-default value for every setting the group's rule allows."""
    values = {s.name: other_value(s) for s in group.items}

    def ok(v: dict[str, Any]) -> bool:
        try:
            group.check(v)
        except ConfigError:
            return False
        return True

    while not ok(values):                       # give back the fewest defaults the rule needs
        fix = next((s for s in group.items if values[s.name] != s.default
                    and ok({**values, s.name: s.default})), None)
        if fix is None:
            fix = next(s for s in group.items if values[s.name] != s.default)
        values[fix.name] = fix.default
    return values
