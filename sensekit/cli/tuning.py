"""The command line over the settings table: generated options, ``--set``, ``--preset``, ``--profile``.

Nothing here knows a setting by name; everything is read from the declarations
(``sensekit.settings``):

- ``add_setting_flags(parser, sections)`` adds, for every setting of those sections that
  declares a ``flag``, an option bound to it (``--blur`` -> ``vision.blur_px``): its type,
  range or choices, help and default all come from the table (a switch gets ``--x/--no-x``);
- ``add_tuning_arguments(parser)`` adds ``--set KEY=VALUE`` (any setting, repeatable; the key
  and the value are checked while the arguments are parsed, exit status 2 with one line),
  ``--preset NAME`` and ``--profile FILE``; with ``app_file=True`` (``sensekit run``) a key of
  a section nothing has declared yet is checked by ``chosen_values`` instead, once the app is
  loaded: ``sensekit run my_app.py --set my_app.speed=2`` names settings the file declares;
- ``chosen_values(args, options=...)`` merges what was chosen, later winning: the preset, the
  profile, the bound options (and ``options``, what a command's own options mean in the
  table, such as ``--activity 25,500``), then ``--set`` in the order given;
- ``apply_chosen(tuning, chosen, app=...)`` applies them to a run and warns about keys the user
  typed whose group is not running (a preset covering more than this run is quiet, and so is a
  profile in ``sensekit events``; an app's run names the library's groups of the profile it
  does not run, once).

``chosen_values`` records where each value came from (``Chosen.origin``); whatever refuses a value
later (a group's rule, a constructor), the CLI's error handler names the profile's ``FILE:LINE``
or the option that gave it (``sensekit.cli.setting_origin``). A ``--profile`` file that sets nothing
runs from the defaults with a warning naming it (``_say_empty``).
"""
from __future__ import annotations

import argparse
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from sensekit.errors import ConfigError
from sensekit.installed import install_hint
from sensekit.safe_read import clip, short
from sensekit.settings.declare import Setting
from sensekit.settings.live import Applied, Tuning, check_values
from sensekit.settings.presets import PRESETS, get_preset
from sensekit.settings.registry import load_table, lookup, split_key

__all__ = ["add_setting_flags", "stage_options", "section_values", "add_tuning_arguments", "add_set_argument",
           "add_profile_argument", "Chosen", "chosen_values", "apply_chosen", "flag_values", "own_option"]

log = logging.getLogger("sensekit")

_FLAG_DEST = "_setting__"
SET_DEST = "settings_set"


def _dest(s: Setting[Any]) -> str:
    return f"{_FLAG_DEST}{s.section}__{s.name}"


def _argtype(s: Setting[Any]) -> Any:
    def convert(text: str) -> Any:
        try:
            return s.parse(text)
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    convert.__name__ = s.key
    return convert


def _metavar(s: Setting[Any]) -> str | None:
    if s.kind == "choice":
        return None
    if s.unit in ("ms", "px", "level", "Hz", "dB"):
        return s.unit.upper()
    return {"int": "N", "float": "X", "color": "#RRGGBB", "zones": "NAME=X,Y,W,H;...",
            "words": "WORD,WORD,..."}.get(s.kind)


def setting_help(s: Setting[Any]) -> str:
    """An option's help: the setting's help, what it takes, its key and its table default."""
    text = f"{s.help} ({s.expectation()}; `{s.key}`, default {s.show(s.default)})"
    return text.replace("%", "%%")


def add_setting_flags(parser: argparse.ArgumentParser | argparse._ArgumentGroup,
                      sections: Iterable[str]) -> list[Setting[Any]]:
    """An option for every setting of ``sections`` that declares a ``flag``; returns them."""
    table = load_table(apps=False)
    added = []
    for section in sections:
        for s in table[section].items:
            if s.flag is None:
                continue
            if s.kind == "bool":
                parser.add_argument(s.flag, dest=_dest(s), action=argparse.BooleanOptionalAction,
                                    default=argparse.SUPPRESS, help=setting_help(s))
            else:                                    # absent unless given: "none" is a value too
                parser.add_argument(s.flag, dest=_dest(s), type=_argtype(s), default=argparse.SUPPRESS,
                                    metavar=_metavar(s), choices=s.choices or None, help=setting_help(s))
            added.append(s)
    return added


def stage_options(parser: argparse.ArgumentParser, title: str, *, extra: str | None = None,
                  options: Sequence[tuple[str, Mapping[str, Any]]] = (),
                  sections: Iterable[str] = ()) -> argparse._ArgumentGroup:
    """The option group of a stage provider (``sensekit events``): ``title`` (with the install
    line of the ``extra`` it needs), its own ``options`` (``(flag, add_argument keywords)``, in
    order), then an option for every flagged setting of ``sections``."""
    g = parser.add_argument_group(f"{title} (needs: {install_hint(extra)})" if extra else title)
    for flag, kwargs in options:
        g.add_argument(flag, **kwargs)
    add_setting_flags(g, sections)
    return g


def section_values(chosen: Mapping[str, Any], section: str) -> dict[str, Any]:
    """The chosen values of one section by setting name (``{"pose.max_people": 2}`` ->
    ``{"max_people": 2}`` for ``"pose"``): a stage's constructor keywords."""
    prefix = section + "."
    return {key[len(prefix):]: v for key, v in chosen.items() if key.startswith(prefix)}


def _assignment(text: str) -> tuple[str, Any]:
    key, eq, value = text.partition("=")
    if not eq or not key.strip():
        raise argparse.ArgumentTypeError(f"--set takes KEY=VALUE (e.g. motion.threshold=30), got {short(text)}")
    try:
        return key.strip(), lookup(key.strip()).parse(value)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


@dataclass(frozen=True)
class _Undeclared:
    """The text of a ``--set`` value whose section nothing has declared while the arguments are
    parsed: an app file's own (``sensekit run my_app.py``), declared when the file is loaded."""
    text: str


def _assignment_or_later(text: str) -> tuple[str, Any]:
    """``_assignment``, but a key of an undeclared section waits for ``chosen_values``."""
    try:
        return _assignment(text)
    except argparse.ArgumentTypeError as exc:
        key, eq, value = text.partition("=")
        try:
            section = split_key(key.strip())[0]
        except ConfigError:
            raise exc from None             # not SECTION.NAME: said now
        if not eq or section in load_table():
            raise                           # a declared section: a typo in the name, said now
        return key.strip(), _Undeclared(value)


def _set_value(key: str, value: Any) -> Any:
    """A ``--set`` value, parsed now if its section was undeclared at parse time."""
    if not isinstance(value, _Undeclared):
        return value
    try:
        return lookup(key).parse(value.text)
    except ConfigError as exc:
        raise ConfigError(f"--set: {exc}") from None


def _preset_name(text: str) -> str:
    try:
        return get_preset(text).name
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_set_argument(parser: argparse.ArgumentParser | argparse._ArgumentGroup, *,
                     app_file: bool = False) -> None:
    """``--set KEY=VALUE``; ``app_file``: a key of an undeclared section is checked later, by
    ``chosen_values`` (``sensekit run my_app.py`` declares its settings when it loads the file)."""
    parser.add_argument("--set", dest=SET_DEST, action="append", default=[],
                        type=_assignment_or_later if app_file else _assignment,
                        metavar="KEY=VALUE", help="set any setting (repeatable; `sensekit settings` lists "
                                                  "them): --set motion.threshold=30 --set clap.min_level=40")


def add_profile_argument(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument("--profile", type=Path, metavar="FILE",
                        help="venue profile (TOML) of settings (see `sensekit calibrate`); options "
                             "given here win over it")


def add_tuning_arguments(parser: argparse.ArgumentParser, *, preset_default: str | None = None,
                         profile: bool = True, app_file: bool = False) -> None:
    """``--set``, ``--preset`` (default ``preset_default``) and, unless ``profile=False``,
    ``--profile``, in an argument group of their own (``app_file``: see ``add_set_argument``)."""
    g = parser.add_argument_group("settings (see `sensekit settings`)")
    add_set_argument(g, app_file=app_file)
    default = f" (default {preset_default})" if preset_default else ""
    g.add_argument("--preset", type=_preset_name, default=preset_default, metavar="NAME",
                   help=f"start from a named set of settings: {', '.join(sorted(PRESETS))}{default}; "
                        "--profile and options win over it")
    if profile:
        add_profile_argument(g)


def flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """``{key: value}`` of the generated options that were given."""
    out: dict[str, Any] = {}
    for dest, value in vars(args).items():
        if dest.startswith(_FLAG_DEST):
            section, name = dest[len(_FLAG_DEST):].split("__", 1)
            out[f"{section}.{name}"] = value
    return out


@dataclass
class Chosen:
    """What the command line chose: ``values`` (merged, checked), the keys the user typed
    (options and ``--set``), the profile that was read, and where each value came from
    (``origin``: ``--set KEY=VALUE``, ``--flag VALUE``, ``--track-color red`` (``own_option``), ``--preset NAME``,
    or ``setting_origin.PROFILE``; read by ``setting_origin.located`` when a value is refused)."""
    values: dict[str, Any] = field(default_factory=dict)
    typed: set[str] = field(default_factory=set)
    profile: Any = None
    profile_path: Path | None = None
    origin: dict[str, str] = field(default_factory=dict)
    #: the profile's text as read, once: loaded, checked for emptiness, and searched for a refused key's line
    profile_text: str | None = None


def _typed_origin(key: str, value: Any, *, flag: bool) -> str:
    """How the command line gave ``key``: ``--blur 5`` (its bound option) or ``--set KEY=VALUE``."""
    if isinstance(value, _Undeclared):
        return f"--set {key}={clip(value.text)}"
    s = lookup(key)
    text = s.show(value).removesuffix(f" {s.unit}" if s.unit else "")
    if flag and s.flag is not None:
        if s.kind == "bool":
            return s.flag if value else "--no-" + s.flag[2:]
        return f"{s.flag} {clip(text)}"
    return f"--set {key}={clip(text)}"


#: a command's own options that give settings (the providers' ``option_values``, ``plot``'s
#: ``--activity``): (the argument's dest, its flag, the keys it sets: a name, or a section ending
#: in ``.``), first match wins (``--track-box`` sets the colour to none, over ``--track-color``)
OWN_OPTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("activity", "--activity", ("activity.",)),
    ("track_box", "--track-box", ("tracker.color",)),
    ("track_color", "--track-color", ("tracker.color",)),
    ("tolerance", "--tolerance", ("tracker.hue_tolerance", "tracker.saturation_tolerance",
                                  "tracker.value_tolerance")),
)


def own_option(args: argparse.Namespace, key: str) -> str:
    """The command's own option that gave ``key``, as typed (``--track-color red``, quoted at most
    60 characters), for a refusal's prefix (``setting_origin.located``); ``the command line``
    for an option ``OWN_OPTIONS`` does not list (``tests/test_own_option_origin.py`` holds every
    provider's keys to it)."""
    for dest, flag, keys in OWN_OPTIONS:
        value = getattr(args, dest, None)
        if value is None or value is False or not any(key == k or (k.endswith(".") and key.startswith(k))
                                                       for k in keys):
            continue
        if isinstance(value, (list, tuple)):
            value = ",".join(map(str, value))
        text = value if isinstance(value, str) else str(value)
        return f"{flag} {clip(text)}"
    return "the command line"


def chosen_values(args: argparse.Namespace, *, options: Mapping[str, Any] | None = None) -> Chosen:
    """Preset < profile < bound options and ``options`` < ``--set``; all checked. The result is
    also left on ``args`` (``setting_origin.CHOSEN_DEST``): a later refusal of a value is told
    where the user gave it (``setting_origin.located``, in the CLI's error handler)."""
    from sensekit.cli.profile_read import profile_text_of
    from sensekit.cli.setting_origin import CHOSEN_DEST, PROFILE
    from sensekit.profile.load import loads_profile

    chosen = Chosen()
    name = getattr(args, "preset", None)
    if name:
        chosen.values.update(check_values(get_preset(name).values))
        chosen.origin.update(dict.fromkeys(chosen.values, f"--preset {name}"))
    path = getattr(args, "profile", None)
    if path is not None:
        chosen.profile_path = Path(path)
        chosen.profile_text = profile_text_of(args)     # read once (cli.profile_read): all below is of this text
        assert chosen.profile_text is not None
        chosen.profile = loads_profile(chosen.profile_text, path=str(chosen.profile_path))
        if not chosen.profile and chosen.profile.taught_gestures is None:
            _say_empty(chosen.profile_path, chosen.profile_text)
        chosen.values.update(chosen.profile)
        chosen.origin.update(dict.fromkeys(chosen.profile, PROFILE))
    flags, own = flag_values(args), check_values(options or {})
    typed = {**flags, **own}
    origin = {key: _typed_origin(key, v, flag=True) for key, v in flags.items()}
    origin.update({key: own_option(args, key) for key in own})
    for key, value in getattr(args, SET_DEST, None) or []:
        split_key(key)
        typed[key] = _set_value(key, value)
        origin[key] = _typed_origin(key, value if isinstance(value, _Undeclared) else typed[key], flag=False)
    chosen.values.update(typed)
    chosen.typed = set(typed)
    chosen.origin.update(origin)
    setattr(args, CHOSEN_DEST, chosen)
    if chosen.profile is not None:
        _check_rules(chosen)
    return chosen


def _say_empty(path: Path, text: str) -> None:
    """A warning naming the profile ``--profile`` names when it sets nothing at all (zero bytes,
    comments only, tables without keys): the run starts from the defaults. A saved profile cut
    within its first line (``#``, ``# ``) is refused before this (``profile.seal``); zero bytes is
    also a file cut or emptied (a copy interrupted, a writer that truncated it and died), but it is
    as well how a user names a new profile that this run's Shift+S or panel saves into (``touch
    venue-b.toml``), so it is said, once, at every start, not refused. Not said: a profile
    sensekit saved whole with nothing in it (Shift+S in a run that changed nothing). ``text`` is
    the profile as it was read and loaded (read once: the file read again could be another one, as
    when it is replaced between the reads, so the warning would speak of one file and the run use
    another's settings)."""
    from sensekit.profile.load import holds_nothing
    from sensekit.profile.seal import saved_whole

    if holds_nothing(text) and not saved_whole(text):
        what = "is empty" if not text.strip() else "sets no value (only comments, blank lines or empty tables)"
        log.warning("profile '%s' %s: this run starts from the defaults, and a save (Shift+S, the panel) "
                    "writes into it; if it held settings, it was cut or emptied: stop and restore it", path, what)


def _check_rules(chosen: Chosen) -> None:
    """The cross-setting rule of each group the profile sets, on what this run chose (as the
    group's constructor will run it), so a damaged profile is refused before the show starts,
    even in a run that does not build that group. A refusal naming a key the profile set (and
    nothing typed overrode) is raised as the rule says it; the CLI's handler names the file and
    line (``setting_origin.located``), as for every refusal of a value. Any other refusal is left
    to the constructor."""
    from sensekit.settings.registry import REGISTRY

    mine = [k for k in chosen.profile if k not in chosen.typed]
    for section in sorted({split_key(k)[0] for k in mine}):
        group = REGISTRY.get(section)
        if group is None or group.rule is None:
            continue
        values = {split_key(k)[1]: v for k, v in chosen.values.items() if split_key(k)[0] == section}
        try:
            group.rule({**group.defaults(), **values})
        except ConfigError as exc:
            if any(f"`{k}`" in str(exc) for k in mine if split_key(k)[0] == section):
                raise


def apply_chosen(tuning: Tuning, chosen: Chosen, *, app: str | None = None) -> Applied:
    """Apply ``chosen`` to a run before it starts (at once: the caller is the loop's thread); a
    key the user typed whose group is not running is a warning, and so is a value the run keeps
    fixed (``Tuning.fixed``: ``vision.mirror`` in an app that mirrors itself) asked for by an
    option, ``--set`` or the profile: it is left out and the run starts. In an app's run (``app``,
    its name: the app chooses its stages, and those ``--words`` or ``--hands`` add are built
    before this), the groups of the library
    (``pitch``, ``clap``, ``motion``...) the profile sets that the app does not run are one warning
    naming them, the file and the app (``_say_ignored``). ``sensekit events`` runs the stages its
    options ask for, from a venue profile that may cover them all: quiet, as before."""
    values = dict(chosen.values)
    for key in list(values):
        why = tuning.refusal(key, values[key])
        if why is None:
            continue
        del values[key]
        if key in chosen.typed:
            log.warning("%s; %s=%s from the command line is not applied", why, key,
                        lookup(key).show(chosen.values[key]))
        elif chosen.profile is not None and key in chosen.profile:
            log.warning("%s; %s=%s from the profile is not applied", why, key,
                        lookup(key).show(chosen.values[key]))
    done = tuning.apply_now(values)
    for key in done.unused:
        if key in chosen.typed:
            log.warning("%s is set, but nothing in this run uses [%s]", key, key.split(".")[0])
    if app is not None:
        _say_ignored(chosen, done.unused, app)
    return done


def _say_ignored(chosen: Chosen, unused: Iterable[str], app: str) -> None:
    """One warning for the library's groups the profile sets and ``run`` does not run: a
    ``[pitch]`` table written for ``sound_flier``, which flies by the level alone, was left out
    without a word (harden27). Another app's own table (``[clapper]`` in a flier run) is quiet: it
    names the app it is for. Said once, at the start.

    A profile sensekit saved (``sensekit calibrate``, Shift+S, the panel, ``teach``: its first line
    says so, ``profile.seal.saved_whole``) is a venue's, shared by every app and ``events``: what
    one app leaves out another uses, so it is not a warning there, only a debug line (``-vv``)
    (harden28: a profile calibrate wrote, [audio], [motion], [noise_floor], [tracker], was a warning
    at every start of each of the 8 apps on the demo). A hand-written one (no such first line) is
    said: the ``[pitch]`` written for the flier.

    A table added by hand to a saved profile (harden29: the saved first line stays, so a ``[pitch]``
    added to a calibrated profile was a debug line) is said as in a hand-written one: a save names
    the tables it wrote on its second line (``profile.seal.written_tables``), and only those are a
    venue's. A profile saved before that line existed (none named) is quiet as before."""
    from sensekit.profile.seal import saved_whole, written_tables

    if chosen.profile is None:
        return
    from sensekit.settings.registry import library_sections

    library = set(library_sections())
    groups = sorted({split_key(k)[0] for k in unused
                     if k in chosen.profile and k not in chosen.typed and split_key(k)[0] in library})
    text = chosen.profile_text if isinstance(chosen.profile_text, str) else ""
    venue = saved_whole(text)
    wrote = written_tables(text) if venue else None
    hand = [g for g in groups if not venue or (wrote is not None and g not in wrote)]
    for level, named in ((logging.WARNING, hand), (logging.DEBUG, [g for g in groups if g not in hand])):
        if named:
            log.log(level, "profile '%s' sets %s, which %s does not use: %s not applied (`sensekit settings` "
                    "lists what each group is for)%s", chosen.profile_path, ", ".join(f"[{g}]" for g in named),
                    app, "its values are" if len(named) == 1 else "their values are",
                    " (added by hand to a profile sensekit saved)" if venue and level == logging.WARNING else "")
