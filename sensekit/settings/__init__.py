"""One table of settings, reachable from everywhere.

Every detector and app declares its settings once (``declare.setting`` / ``declare.group``:
name, unit, range or choices, default, one line of help); ``registry`` holds the table;
``live`` makes them changeable while running (``Tunable``, ``Tuning``); ``presets`` names sets
of values (``--preset book``). The command line, ``sensekit settings``, venue profiles, OSC,
the app keys, ``calibrate`` and Shift+S are thin adapters over this table (see
docs/ARCHITECTURE.md, "How a setting travels").
"""
from sensekit.settings.declare import Group, Setting, group, setting
from sensekit.settings.live import Applied, Tunable, Tuning, check_values, find_tunables, parse_values
from sensekit.settings.presets import PRESETS, Preset, get_preset
from sensekit.settings.registry import REGISTRY, describe_table, groups, load_table, lookup

__all__ = ["Group", "Setting", "group", "setting", "Applied", "Tunable", "Tuning", "check_values",
           "find_tunables", "parse_values", "PRESETS", "Preset", "get_preset", "REGISTRY",
           "describe_table", "groups", "load_table", "lookup"]
