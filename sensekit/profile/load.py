"""Reading venue profiles: a TOML file of settings, checked against the table, errors at FILE:LINE.

A profile's tables are the settings groups and its keys their settings (``sensekit settings``
lists them all), so any setting can be kept for a venue::

    [motion]
    noise_sigma = 1.1         # camera noise (sensekit calibrate measures it)

    [motion.zones]            # name = [x, y, w, h], fractions 0..1 of the frame
    door = [0.0, 0.0, 0.25, 1.0]

    [audio]
    gain = 62.5

    [activity]
    silence_level = 25.0
    timeout_ms = 500.0

    [clapper]
    method = "activity"

A ``[midi]`` table is the MIDI map (``sensekit.midi.mapping``), read by ``--midi``.
Taught sounds (``sensekit teach sound``) live in ``[sounds.NAME]`` tables of learned data, taught
command words (``sensekit teach words``) in ``[taught_words.classifier]``
(``DATA_TABLES``), which the settings check skips and ``read_table`` returns; taught hand
gestures (``sensekit teach gesture``) in ``[taught_gestures]`` (``TAUGHT_TABLE``).

Every key is optional; a key that is absent keeps what the run would use anyway. An optional
setting is set to nothing with the string ``"none"`` (``threshold = "none"``: learned).

Older profiles (before one table) used ``[color] target, tolerance``, ``[audio] threshold,
timeout_ms, noise_floor`` and ``[motion] noise_floor``; they still load (``LEGACY_KEYS``), the
old camera noise floor converted to ``motion.noise_sigma`` (it was the median difference /
0.6745; see ``sensekit.vision.noise``). ``[tracker] blur_px`` and ``levels`` load as ``vision.blur_px`` and
``vision.levels`` with a warning naming FILE:LINE (``DEPRECATED``, from the one table of moved
settings ``sensekit.settings.renames``: the tracker has no blur or palette of its own any more;
a save renames them). A setting given twice (new and old name) with two values is an error.

Reading is bounded: the file must be a regular file (not a FIFO or ``/dev/zero``) of at most
1 MB, nested at most 8 levels, with no number of more than 40 digits; anything else is a
one-line ``ConfigError`` before the TOML parser runs.

Errors: an unknown table or key, a value of the wrong type or out of range, and a TOML syntax
error are ``ConfigError``s whose message starts with ``FILE:LINE:`` and names the key
(``venue.toml:7: unknown key `audio.gian`; known keys in [audio]: gain, smoothing_ms``). The
line is found by scanning the text for the key under its table; a key the scan cannot place
is reported with the line of its table, or without a line.

Cost: a ``tomllib`` parse and one check per key (well under a millisecond), plus, the first
time, importing the modules that declare settings (the apps' only when a table names one).
"""
from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from sensekit.arg_types import checked
from sensekit.errors import ConfigError
from sensekit.profile.seal import check_seal
from sensekit.safe_read import check_nesting, clip, read_regular, short
from sensekit.settings.declare import Group
from sensekit.settings.registry import REGISTRY, load_table
from sensekit.settings.renames import RENAMED
from sensekit.suggest import backticked, close_matches, did_you_mean
from sensekit.vision.noise import MEDIAN_FACTOR, SQRT2

__all__ = ["Profile", "TAUGHT_TABLE", "LEGACY_KEYS", "DEPRECATED", "DATA_TABLES", "load_profile", "loads_profile",
           "profile_from_dict", "find_line", "legacy_name", "read_table", "where_in", "holds_nothing"]

#: tables that hold learned data rather than settings: ``[sounds.NAME]`` (``sensekit teach
#: sound``; read by ``sensekit.audio.sounds``) and ``[taught_words.classifier]`` (``sensekit
#: teach words``; ``sensekit.audio.taught_words``), skipped by the settings check
DATA_TABLES = frozenset({"sounds", "taught_words"})

MAX_PROFILE_BYTES = 1 << 20       # a profile is a page of settings; 1 MB is far beyond any
MAX_PROFILE_DEPTH = 8             # tables and arrays in a profile: [motion.zones] door = [..]

#: the old camera noise floor (median of the max-of-3 difference / 0.6745) -> camera sigma
_OLD_NOISE_TO_SIGMA = MEDIAN_FACTOR["one"] / (MEDIAN_FACTOR["max"] * SQRT2)

#: old profile key -> (key in the table, conversion of the value)
LEGACY_KEYS: dict[str, tuple[str, Callable[[Any], Any] | None]] = {
    "color.target": ("tracker.color", None),
    "color.tolerance": ("tracker.hue_tolerance", None),
    "audio.threshold": ("activity.silence_level", None),
    "audio.timeout_ms": ("activity.timeout_ms", None),
    "audio.noise_floor": ("noise_floor.level", None),
    "motion.noise_floor": ("motion.noise_sigma",
                           lambda v: round(float(v) * _OLD_NOISE_TO_SIGMA, 3)
                           if isinstance(v, (int, float)) and not isinstance(v, bool) else v),
    **{old: (new, None) for old, (new, _) in RENAMED.items()},
}

#: old keys that still load but say so (what changed), and that a save moves to the new key:
#: the settings that moved (``sensekit.settings.renames``, the table ``--set``/OSC/panel read)
DEPRECATED = {old: why for old, (_, why) in RENAMED.items()}

log = logging.getLogger(__name__)


#: tables of a profile that are not settings, read by their own modules
OTHER_TABLES = frozenset({"midi"})     # sensekit.midi.load_midi: the MIDI map


def legacy_name(key: str) -> str | None:
    """The old profile name of ``key``, if it had one."""
    return next((old for old, (new, _) in LEGACY_KEYS.items() if new == key), None)


#: the profile table that holds the gestures taught with ``sensekit teach gesture --profile``
#: (a model, not settings: ``Profile.taught_gestures``, read by ``sensekit.vision.taught``)
TAUGHT_TABLE = "taught_gestures"


class Profile(Mapping[str, Any]):
    """The settings of a profile: ``{key: value}`` (checked), and where they came from.
    ``taught_gestures`` is the profile's taught gestures model (a plain mapping) or ``None``."""

    @checked
    def __init__(self, values: Mapping[str, Any] | None = None, *, path: str | None = None,
                 taught_gestures: Mapping[str, Any] | None = None) -> None:
        self._values = dict(values or {})
        self.path = path
        self.taught_gestures = dict(taught_gestures) if taught_gestures is not None else None

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Profile({self._values!r}, path={self.path!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._values) == dict(other)

    __hash__ = None  # type: ignore[assignment]

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)


# --- finding lines -------------------------------------------------------------------

_HEADER_RE = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_KEY_RE = re.compile(r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=""")


def _split_key(text: str) -> tuple[str, ...]:
    parts = re.findall(r"""[A-Za-z0-9_-]+|"[^"]*"|'[^']*'""", text)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)


def find_line(text: str, key: str | tuple[str, ...]) -> int | None:
    """1-based line where dotted ``key`` is set (or the key given as its parts, for a part
    that holds a dot: ``("midi", "map", "blobs.count")``); else the line of its deepest
    enclosing table or inline table; ``None`` if nothing matches."""
    want = key if isinstance(key, tuple) else tuple(key.split("."))
    table: tuple[str, ...] = ()
    best: int | None = None
    best_depth = 0
    for n, line in enumerate(text.splitlines(), start=1):
        m = _HEADER_RE.match(line)
        if m and not line.lstrip().startswith("[["):
            table = _split_key(m.group(1))
            full = table
        else:
            m = _KEY_RE.match(line)
            if not m:
                continue
            full = table + _split_key(m.group(1))
        if full == want:
            return n
        depth = len(full)
        if depth < len(want) and want[:depth] == full and depth > best_depth:
            best, best_depth = n, depth
    return best


def _where(path: str, text: str, key: str) -> str:
    line = find_line(text, key)
    return f"{path}:{line}" if line is not None else path


def where_in(path: str, text: str, key: str) -> str:
    """``FILE:LINE`` of ``key`` in the profile ``text`` read from ``path`` (``FILE`` alone when
    the key cannot be placed; its older name when the file uses that)."""
    old = legacy_name(key)
    if find_line(text, key) is None and old is not None and find_line(text, old) is not None:
        return _where(path, text, old)
    return _where(path, text, key)


# --- loading ---------------------------------------------------------------------------

def _known_sections(names: list[str]) -> None:
    """Import what declares settings; the apps only if a table is not a library group."""
    load_table(apps=False)
    legacy_sections = {k.split(".")[0] for k in LEGACY_KEYS}
    if any(n not in REGISTRY and n not in legacy_sections for n in names):
        load_table(apps=True)


def profile_from_dict(data: Mapping[str, Any], *, path: str = "<profile>", text: str = "") -> Profile:
    """Check parsed TOML against the table; errors name key, file and line."""
    taught = data.get(TAUGHT_TABLE)
    if taught is not None and not isinstance(taught, Mapping):
        raise ConfigError(f"{_where(path, text, TAUGHT_TABLE)}: `{TAUGHT_TABLE}` must be a table, got {taught!r}")
    data = {k: v for k, v in data.items() if k != TAUGHT_TABLE}
    _known_sections([n for n in data if n not in OTHER_TABLES and n not in DATA_TABLES])
    values: dict[str, Any] = {}
    written_as: dict[str, str] = {}
    for section, table in data.items():
        if section in OTHER_TABLES or section in DATA_TABLES:   # read by their owners (--midi, sounds)
            continue
        group, legacy = _section(section, table, path, text)
        for name, value in table.items():
            full = f"{section}.{name}"
            key, value = _key_of(full, name, value, group, legacy, path, text)
            if full in DEPRECATED:
                log.warning("%s: `%s` is deprecated, loaded as `%s = %s` (%s); save the profile to "
                            "rename it", _where(path, text, full), full, key, short(value), DEPRECATED[full])
            checked = _checked(key, full, value, path, text)
            if key in written_as and values[key] != checked:
                raise ConfigError(f"{_where(path, text, full)}: `{key}` is set twice "
                                  f"(as `{written_as[key]}` and `{full}`)")
            written_as[key] = full
            values[key] = checked
    return Profile(values, path=path, taught_gestures=taught)


def _section(section: str, table: Any, path: str, text: str) -> tuple[Group | None, set[str]]:
    """The group a profile table sets and the older names it may use; ``ConfigError`` if neither."""
    group = REGISTRY.get(section)
    legacy = {k.split(".", 1)[1] for k in LEGACY_KEYS if k.startswith(section + ".")}
    if group is None and not legacy:
        if not isinstance(table, Mapping):
            owners = [g for g in sorted(REGISTRY) if section in REGISTRY[g]]
            under = " or ".join(f"[{g}]" for g in owners[:4]) or "its table"
            raise ConfigError(f"{_where(path, text, section)}: `{clip(section)}` stands outside any table; "
                              f"a setting goes under its table's line ({under}; `sensekit settings` "
                              f"lists them)")
        close = did_you_mean(close_matches(section, REGISTRY), quote=backticked)
        raise ConfigError(f"{_where(path, text, section)}: unknown table `{clip(section)}`; known tables: "
                          f"{', '.join(sorted(REGISTRY))}" + (f"; {close}" if close else ""))
    if not isinstance(table, Mapping):
        raise ConfigError(f"{_where(path, text, section)}: `{clip(section)}` must be a table "
                          f"([{clip(section)}]), got {short(table)}")
    return group, legacy


def _key_of(full: str, name: str, value: Any, group: Group | None, legacy: set[str],
            path: str, text: str) -> tuple[str, Any]:
    """The setting a profile key names (an older name converted) and its value as written."""
    if full in LEGACY_KEYS:
        key, convert = LEGACY_KEYS[full]
        return key, (convert(value) if convert is not None else value)
    if group is not None and name in group:
        return full, value
    section = full.split(".", 1)[0]
    known = ", ".join(group.names) if group is not None else ""
    old = ", ".join(sorted(legacy))
    hint = f"known keys in [{section}]: {known}" if known else ""
    if old:
        hint += ("; " if hint else "") + f"older names: {old}"
    close = did_you_mean([f"{section}.{n}" for n in close_matches(name, [*(group.names if group else ()),
                                                                        *legacy])], quote=backticked)
    if close:
        hint += ("; " if hint else "") + close
    raise ConfigError(f"{_where(path, text, full)}: unknown key `{clip(full)}`; {hint}")


def _checked(key: str, full: str, value: Any, path: str, text: str) -> Any:
    """``value`` checked by the setting ``key`` (written as ``full``); errors name file and line."""
    section_name, setting_name = key.split(".")
    s = REGISTRY.get(section_name)
    if s is None:
        raise ConfigError(f"{_where(path, text, full)}: `{full}` is for `{key}`, which this "
                          f"installation does not have")
    setting = s[setting_name]
    if isinstance(value, str) and value.strip().lower() == "none" and setting.optional:
        value = None
    if setting.kind == "zones" and isinstance(value, Mapping):
        for zone, box in value.items():            # one zone at a time: its own line
            try:
                setting.check({zone: box})
            except ConfigError as exc:
                raise ConfigError(f"{_where(path, text, f'{full}.{zone}')}: {exc}") from None
    try:
        return setting.check(value)
    except ConfigError as exc:
        message = str(exc) if full == key else f"{exc} (written as `{full}`)"
        raise ConfigError(f"{_where(path, text, full)}: {message}") from None


def loads_profile(text: str, *, path: str = "<profile>") -> Profile:
    check_nesting(text, toml=True, what=f"{path}: the profile", max_depth=MAX_PROFILE_DEPTH)
    try:
        data = tomllib.loads(text)
    except RecursionError:                                   # not reached after check_nesting
        raise ConfigError(f"{path}: the profile is nested too deeply") from None
    except ValueError as exc:                                # TOMLDecodeError is a ValueError
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        where = f"{path}:{m.group(1)}" if m else path
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ConfigError(f"{where}: not valid TOML: {reason}") from None
    return profile_from_dict(data, path=path, text=text)


def load_profile(path: str | os.PathLike[str]) -> Profile:
    """Read and check a venue profile. Raises ``ConfigError`` (never a TOML or OS error)."""
    p = Path(path)
    return loads_profile(profile_text(p), path=str(p))


def profile_text(p: Path) -> str:
    """The text of the profile at ``p``: a regular file of at most ``MAX_PROFILE_BYTES``, UTF-8,
    not a profile sensekit saved cut short (``seal.check_seal``) (every reader of a profile:
    loading it, and saving into it while a show runs)."""
    try:
        data = read_regular(p, max_bytes=MAX_PROFILE_BYTES, what=f"profile {str(p)!r}")
    except FileNotFoundError:
        raise ConfigError(f"profile {str(p)!r} does not exist") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read profile {str(p)!r}: it is not UTF-8 text (byte "
                          f"0x{data[exc.start]:02x} at offset {exc.start}); a profile is a TOML text "
                          f"file, saved as UTF-8") from None
    check_seal(text, str(p))            # a profile sensekit saved, cut short: refused (profile/seal.py)
    return text


def holds_nothing(text: str) -> bool:
    """True when the profile ``text`` (valid TOML) sets no value at all: zero bytes, blank lines,
    comments, tables without keys. ``load_profile`` reads such a file as an empty profile (a
    caller that means one); the command line's ``--profile`` refuses it (``cli.tuning``)."""
    def values(node: Any) -> bool:
        return any(values(v) for v in node.values()) if isinstance(node, dict) else True
    try:
        return not values(tomllib.loads(text))
    except ValueError:                          # not TOML: the loader says so
        return False


def read_table(path: str | os.PathLike[str], name: str, *, text: str | None = None) -> dict[str, Any]:
    """One data table of the profile at ``path`` (``{}`` when absent); ``ConfigError`` otherwise.
    The file is read as ``load_profile`` reads it (a regular file, capped, nesting bounded): a
    FIFO or ``/dev/zero`` given as the profile of ``--sounds`` used to hang the command. ``text``:
    the profile's text as the command already read it (``cli.profile_read``), not read again."""
    p = Path(path)
    text = profile_text(p) if text is None else text
    check_nesting(text, toml=True, what=f"{p}: the profile", max_depth=MAX_PROFILE_DEPTH)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{_where(str(p), text, name)}: `{name}` must be a table ([{name}.NAME])")
    return table
