"""``sensekit settings [SECTION...] [--json]``: the whole settings table, and the presets.

Every setting of every detector, stage and app (``sensekit.settings``): its key, default,
unit and range or choices, the command-line option bound to it (if any) and one line of
help; then the presets. ``--json`` prints the same as one JSON document (``groups`` ->
``settings``, and ``presets``). Naming sections shows only those (``sensekit settings motion
clap``), naming keys only those settings (``sensekit settings clap.threshold``); an unknown
section is an error listing the sections, an unknown key one naming the closest keys. An app
file (``sensekit settings my_app.py``) stands for the section it declares, as ``sensekit run
my_app.py`` loads it (one line, exit 2, if it declares none).

Any key can be set with ``--set KEY=VALUE`` (``run``, ``events``, ``calibrate``), in a venue
profile (``[section] name = value``), over OSC (``/sensekit/set/<section>/<name>``) and, for
an app's ``plus_minus`` setting, with the keys ``+``/``-``.
"""
from __future__ import annotations

import argparse
import json
import textwrap
from typing import Any

from sensekit.cli import Subparsers, WrapFormatter
from sensekit.errors import ConfigError
from sensekit.settings.presets import the_book


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "settings", help="list every setting (units, ranges, defaults, help) and the presets",
        description="List every setting of every detector, stage and app, and the presets. Set any "
                    "of them with --set KEY=VALUE, in a venue profile, or over OSC.",
        epilog=the_book() + ".", formatter_class=WrapFormatter)
    p.add_argument("sections", nargs="*", metavar="SECTION[.NAME]",
                   help="only these sections or settings (e.g. motion clap.threshold), or the "
                        "settings an app file declares (my_app.py)")
    p.add_argument("--json", action="store_true", help="one JSON document instead of text")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from sensekit.settings.registry import describe_table, load_table, lookup
    from sensekit.suggest import close_matches, did_you_mean

    table = load_table()
    args.sections = [_app_file_section(s) if s.endswith(".py") else s for s in args.sections]
    keys = [lookup(k).key for k in args.sections if "." in k]      # a one-line error naming the closest
    unknown = [s for s in args.sections if "." not in s and s not in table]
    if unknown:
        close = did_you_mean([m for s in unknown for m in close_matches(s, table)])
        raise ConfigError(f"unknown settings section(s) {', '.join(unknown)}"
                          f"{f' ({close})' if close else ''}; sections: {', '.join(sorted(table))}")
    data = describe_table()
    if args.sections:
        whole = {s for s in args.sections if "." not in s}

        def wanted(key: str) -> bool:
            return key.split(".")[0] in whole or key in keys
        groups = [{**g, "settings": [s for s in g["settings"] if wanted(s["key"])]} for g in data["groups"]]
        data["groups"] = [g for g in groups if g["settings"]]
        data["presets"] = {name: {**p, "values": {k: v for k, v in p["values"].items() if wanted(k)}}
                           for name, p in data["presets"].items()}
    if args.json:
        print(json.dumps(data, indent=1, sort_keys=True))
        return 0
    print(render_text(data))
    return 0


def _app_file_section(text: str) -> str:
    """The section the app file ``text`` declares (loading it registers it in the table)."""
    from sensekit.app.registry import resolve

    app_cls = resolve(text)                      # a missing file, a folder, no App: one line
    declared = getattr(app_cls, "SETTINGS", None)
    if declared is None or not declared.items:
        raise ConfigError(f"app file {text!r} declares no settings ({app_cls.__name__} names no "
                          f"section with setting(...) attributes; see the tutorial's \"Where next\")")
    return str(declared.section)


def _show(s: dict[str, Any]) -> str:
    value = s["default"]
    if value is None:
        return f"none ({s['none']})" if s["none"] else "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        value = f"{value:g}"
    if isinstance(value, dict):
        return ";".join(f"{k}={','.join(f'{v:g}' for v in box)}" for k, box in value.items()) or "none"
    if isinstance(value, (list, tuple)):                 # words
        return ",".join(str(v) for v in value) or "none"
    return f"{value} {s['unit']}".rstrip() if s["kind"] in ("int", "float") else str(value)


def render_text(data: dict[str, Any]) -> str:
    """The table for people: per group, each setting's key, default, range and help; then presets."""
    lines: list[str] = []
    count = 0
    for g in data["groups"]:
        lines.append(f"[{g['section']}]  {g['title']}")
        for s in g["settings"]:
            count += 1
            extra = f"  {s['flag']}" if s["flag"] else ""
            if s["step"] is not None:
                extra += f"  (+/- step {'x' if s['log_step'] else ''}{s['step']:g})"
            lines.append(f"  {s['key']} = {_show(s)}{extra}")
            body = f"{s['help']}; {s['expects']}"
            lines.extend(textwrap.wrap(body, width=96, initial_indent="      ", subsequent_indent="      "))
        lines.append("")
    groups = len(data["groups"])
    lines.append(f"{count} setting{'' if count == 1 else 's'} in {groups} group{'' if groups == 1 else 's'}. "
                 f"Set {'it' if count == 1 else 'any of them'} with --set KEY=VALUE, "
                 "in a profile ([section] name = value) or over OSC (/sensekit/set/<section>/<name>).")
    lines += ["", the_book() + "."]
    if data["presets"]:
        lines += ["", "presets (--preset NAME):"]
        for name, p in sorted(data["presets"].items()):
            lines.append(f"  {name}: {p['help']}")
            values = ", ".join(f"{k}={v}" for k, v in p["values"].items())
            lines.extend(textwrap.wrap(values, width=96, initial_indent="      ", subsequent_indent="      "))
    return "\n".join(lines)
