"""Declaring a setting: its name, unit, range or choices, default and one line of help.

A detector (or an app) declares each setting once, as a class attribute of a ``Tunable``
(``sensekit.settings.live``) whose class line names the section::

    class MotionDetector(Tunable, section="motion", title="frame-difference / background motion"):
        threshold: Setting[int | None] = setting(
            None, "pixel difference that counts as motion", kind="int", unit="pixel levels",
            lo=1, hi=255, none="learned from the camera noise", flag="--motion-threshold")
        min_amount = setting(0.002, "moving fraction that makes a frame 'moving'",
                             unit="fraction", lo=0, hi=1)

The attribute's name is the setting's name; the class gets ``SETTINGS``, the ``Group`` of its
declarations in order, registered in the table. A ``Setting`` is a descriptor typed by its
value: ``detector.min_amount`` is a ``float`` to mypy and, once ``init_settings`` stored the
values in the instance, a plain attribute read at run time (``MotionDetector.min_amount`` is the
``Setting`` itself). The type comes from the default; a setting whose default is ``None`` or
that has choices says it once, on the same line (``Setting[int | None]``). Settings shared by
a helper (the colour model's) are declared on a plain mixin class that the tunable inherits.

Every adapter (CLI options and ``--set``, ``sensekit settings``, the venue profile, OSC
``/sensekit/set/<section>/<name>``, the app keys, ``calibrate`` and Shift+S) reads these
declarations; none of them knows a setting by name. The key of a setting is
``section.name`` everywhere (``motion.threshold``).

Kinds: ``float`` and ``int`` (a range ``lo..hi``), ``bool``, ``choice`` (one of ``choices``),
``color`` (``"#rrggbb"``), ``words`` (a list of words: ``left,right,jump`` or a TOML
array of strings; lower-cased, in order, without repeats; at most ``MAX_WORDS`` (64) of at most
``MAX_WORD_CHARS`` (64) characters) and ``zones`` (``{name: (x, y, w, h)}``
in fractions 0..1 of the frame; at most ``MAX_ZONES`` (64), names of at most ``MAX_ZONE_NAME``
(64) characters, so a panel or OSC client cannot grow the motion detector's work and every
motion event without bound, one zone at a time). ``none=`` makes ``None`` a valid value and
says what it means ("learned", "off").
``numbers``: a list of finite numbers (a learned model's, ``clap.venue_model``; TOML: an array;
text: comma-separated; ``none``: empty), at most ``MAX_NUMBERS`` (512).
``setting()`` infers the kind from the default when it can.

Values come in two forms: text (command line, ``--set``, an OSC string) through
``Setting.parse``, and native values (TOML, OSC numbers, Python) through ``Setting.check``;
both return the normalised value or raise ``ConfigError`` naming the key and the value
("`motion.threshold` must be a whole number 1..255 pixel levels, got 300").
``Setting.format`` writes a value as text that ``parse`` reads back exactly.

Cost: nothing per frame; checking a value is a few comparisons.
"""
from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Generic, Literal, Mapping, TypeVar, overload

from sensekit.errors import ConfigError
from sensekit.safe_read import MAX_NUMBER_DIGITS, clip, short
from sensekit.settings.renames import moved

__all__ = ["Kind", "Setting", "Group", "setting", "group", "Zone", "KINDS", "check_zone_name"]

Kind = Literal["float", "int", "bool", "choice", "color", "zones", "words", "numbers"]
KINDS: tuple[str, ...] = ("float", "int", "bool", "choice", "color", "zones", "words", "numbers")
Zone = tuple[float, float, float, float]
T = TypeVar("T")
#: a range from above 0 that spans this factor gets a logarithmic slider in the panel
LOG_CONTROL_RATIO = 1000.0
#: the most zones a ``zones`` setting holds, and the longest zone name
MAX_ZONES = 64
MAX_ZONE_NAME = 64
#: the most words a ``words`` setting holds, and the longest word: the recogniser's work per
#: voiced segment grows with the list (3,000 words: 0.35 s for 0.84 s of speech, 0.02 s for two)
MAX_WORDS = 64
MAX_WORD_CHARS = 64
MAX_NUMBERS = 512
#: a range from 0 (or below) this wide gets a number box only: a 1/200 slider step would be 50+ units
NUMBER_CONTROL_SPAN = 10_000.0
_NAME_RE = re.compile(r"[a-z][a-z0-9_]*")
_WORD_RE = re.compile(r"[^\s,;=]+")
_COLOR_RE = re.compile(r"#?(?:0x)?([0-9a-fA-F]{6})")
_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


def _number_text(v: float) -> str:
    """A bound as people read it: ``600000``, ``0.5``; a whole number of a million or more with
    its thousands grouped (``1,073,741,824``: ``:g`` rounded it to ``1.07374e+09``)."""
    if float(v).is_integer() and abs(v) >= 1e6:
        return f"{int(v):,}"
    return f"{v:g}"


@dataclass(frozen=True, slots=True)
class Setting(Generic[T]):
    """One declared setting, a descriptor typed by its value (see the module docstring).

    ``name`` and ``section`` are filled in when the class that declares it is created."""

    default: T
    help: str
    kind: Kind = "float"
    unit: str = ""
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] = ()
    #: what ``None`` means ("learned", "off"); empty: ``None`` is not a valid value
    none: str = ""
    #: one key press of ``+``/``-`` (an app's sensitivity): added, or a factor when ``log_step``
    step: float | None = None
    log_step: bool = False
    #: a friendly command-line option bound to this setting (``--blur``); ``--set`` works for all
    flag: str | None = None
    name: str = ""
    section: str = ""

    @overload
    def __get__(self, obj: None, owner: type[Any] | None = None) -> Setting[T]: ...
    @overload
    def __get__(self, obj: object, owner: type[Any] | None = None) -> T: ...

    def __get__(self, obj: object | None, owner: type[Any] | None = None) -> Setting[T] | T:
        # reached only when the instance holds no value: ``init_settings`` stores every value
        # in the instance, whose attribute then wins over this (non-data) descriptor
        if obj is None:
            return self
        raise AttributeError(f"setting `{self.key}` of {type(obj).__name__} read before init_settings()")

    @property
    def key(self) -> str:
        return f"{self.section}.{self.name}"

    @property
    def optional(self) -> bool:
        return bool(self.none)

    # -- checking -------------------------------------------------------------------
    def expectation(self) -> str:
        """What a valid value looks like, for messages and ``sensekit settings``."""
        unit = f" {self.unit}" if self.unit else ""
        if self.kind in ("float", "int"):
            what = "a whole number" if self.kind == "int" else "a number"
            if self.lo is not None and self.hi is not None:
                text = f"{what} {_number_text(self.lo)}..{_number_text(self.hi)}{unit}"
            elif self.lo is not None:
                text = f"{what} >= {_number_text(self.lo)}{unit}"
            else:
                text = f"{what}{unit}"
        elif self.kind == "bool":
            text = "true or false"
        elif self.kind == "choice":
            text = "one of " + ", ".join(self.choices)
        elif self.kind == "color":
            text = 'a colour "#RRGGBB"'
        elif self.kind == "words":
            text = "a list of words (word,word,...)"
        elif self.kind == "numbers":
            text = f"a list of at most {MAX_NUMBERS} finite numbers (x,y,...)"
        else:
            text = "zones name=x,y,w,h;... (fractions 0..1 of the frame)"
        return text + (f" (or none: {self.none})" if self.none else "")

    def _bad(self, value: Any) -> ConfigError:
        return ConfigError(f"`{self.key}` must be {self.expectation()}, got {short(value)}")

    def check(self, value: Any) -> Any:
        """A native value (TOML, OSC, Python) -> the normalised value, or ``ConfigError``."""
        if value is None:
            if self.none:
                return None
            raise self._bad(value)
        kind = self.kind
        if kind in ("float", "int"):
            return self._check_number(value)
        if kind == "bool":
            return self._check_bool(value)
        if kind == "choice":
            return self._check_choice(value)
        if kind == "color":
            return self._check_color(value)
        if kind == "words":
            return self._check_words(value)
        if kind == "numbers":
            return self._check_numbers(value)
        return self._check_zones(value)

    def _check_numbers(self, value: Any) -> tuple[float, ...]:
        items = [v for v in value.split(",") if v.strip()] if isinstance(value, str) else value
        if isinstance(items, (bytes, Mapping)) or not isinstance(items, (list, tuple)):
            raise self._bad(value)
        if len(items) > MAX_NUMBERS:
            raise ConfigError(f"`{self.key}` holds at most {MAX_NUMBERS} numbers, got {len(items):,}")
        out: list[float] = []
        for v in items:
            if isinstance(v, str) and len(v.strip()) <= MAX_NUMBER_DIGITS + 8:
                try:
                    v = float(v)
                except ValueError:
                    raise self._bad(value) from None
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(float(v)):
                raise self._bad(value)
            out.append(float(v))
        return tuple(out)

    def _check_bool(self, value: Any) -> bool:
        if isinstance(value, bool) or type(value).__name__ == "bool_":
            return bool(value)
        if isinstance(value, int) and value in (0, 1):     # OSC sends 0/1
            return bool(value)
        raise self._bad(value)

    def _check_choice(self, value: Any) -> str:
        if isinstance(value, str) and value in self.choices:
            return value
        raise self._bad(value)

    def _check_color(self, value: Any) -> str:
        if isinstance(value, str):
            m = _COLOR_RE.fullmatch(value.strip())
            if m:
                return "#" + m.group(1).lower()
        raise self._bad(value)

    def _check_words(self, value: Any) -> tuple[str, ...]:
        items = value.split(",") if isinstance(value, str) else value
        if isinstance(items, (bytes, Mapping)) or not isinstance(items, (list, tuple)):
            raise self._bad(value)
        if len(items) > MAX_WORDS * 4:                     # before looking at each one
            raise ConfigError(f"`{self.key}` holds at most {MAX_WORDS} words, got {len(items):,}")
        words: list[str] = []
        for item in items:
            if not isinstance(item, str):
                raise self._bad(value)
            w = item.strip().lower()
            if not w and isinstance(value, str):
                continue
            if not _WORD_RE.fullmatch(w):
                raise ConfigError(f"`{self.key}` words must be non-empty and free of spaces , ; =, got {item!r}")
            if len(w) > MAX_WORD_CHARS:
                raise ConfigError(f"`{self.key}` words are at most {MAX_WORD_CHARS} characters, got {short(w)}")
            if w not in words:
                words.append(w)
        if len(words) > MAX_WORDS:
            raise ConfigError(f"`{self.key}` holds at most {MAX_WORDS} words, got {len(words)}")
        return tuple(words)

    def _check_number(self, value: Any) -> float | int:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise self._bad(value)
        if isinstance(value, int) and abs(value) > 2 ** 63:   # checked before float() overflows
            raise self._bad(value)
        try:
            v = float(value)
        except (OverflowError, ValueError):
            raise self._bad(value) from None
        if not math.isfinite(v) or (self.lo is not None and v < self.lo) or (self.hi is not None and v > self.hi):
            raise self._bad(value)
        if self.kind == "int":
            if not v.is_integer():
                raise self._bad(value)
            return int(v)
        return v

    def _check_zones(self, value: Any) -> dict[str, Zone]:
        if not isinstance(value, Mapping):
            raise self._bad(value)
        if len(value) > MAX_ZONES:
            raise ConfigError(f"`{self.key}` holds at most {MAX_ZONES} zones, got {len(value)}")
        zones: dict[str, Zone] = {}
        for name, box in value.items():
            if not isinstance(name, str) or not name.strip() or set(name) & set(",;=") \
                    or len(name) > MAX_ZONE_NAME:
                raise ConfigError(f"zone names in `{self.key}` must be 1..{MAX_ZONE_NAME} characters free "
                                  f"of , ; =, got {short(name)}")
            check_zone_name(name, f"`{self.key}`")
            where = f"`{self.key}.{name}`"
            if isinstance(box, (str, bytes)) or not hasattr(box, "__len__") or len(box) != 4:
                raise ConfigError(f"{where} must be [x, y, w, h] (4 fractions 0..1 of the frame), got {short(box)}")
            nums = []
            for v in box:
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)) \
                        or not 0.0 <= float(v) <= 1.0:
                    raise ConfigError(f"{where} must be [x, y, w, h] with each 0..1 (fractions of the frame), "
                                      f"got {short(list(box))}")
                nums.append(float(v))
            x, y, w, h = nums
            if w <= 0 or h <= 0 or x + w > 1.0 + 1e-9 or y + h > 1.0 + 1e-9:
                raise ConfigError(f"{where} must have w, h > 0 and lie inside the frame "
                                  f"(x + w <= 1, y + h <= 1), got {short(list(box))}")
            zones[name] = (x, y, w, h)
        return zones

    # -- text -----------------------------------------------------------------------
    def parse(self, text: str) -> Any:
        """Text (command line, ``--set``, an OSC string) -> the normalised value."""
        if not isinstance(text, str):
            return self.check(text)
        s = text.strip()
        if s.lower() == "none" and (self.none or self.kind in ("zones", "words", "numbers")):
            return None if self.none else ({} if self.kind == "zones" else ())
        kind = self.kind
        if kind in ("float", "int"):
            if len(s) > MAX_NUMBER_DIGITS + 8:                 # before int() or float() sees it
                raise self._bad(text)
            try:
                value: Any = int(s, 0) if re.fullmatch(r"[+-]?(0[xX][0-9a-fA-F]+|\d+)", s) else float(s)
            except ValueError:
                raise self._bad(text) from None
            return self.check(value)
        if kind == "bool":
            low = s.lower()
            if low in _TRUE:
                return True
            if low in _FALSE:
                return False
            raise self._bad(text)
        if kind == "zones":
            return self.check(_parse_zones(s, self.key))
        return self.check(s)

    def format(self, value: Any) -> str:
        """``value`` as text that ``parse`` reads back to the same value."""
        if value is None:
            return "none"
        if self.kind == "bool":
            return "true" if value else "false"
        if self.kind == "float":
            return repr(float(value))
        if self.kind == "words":
            return ",".join(value) or "none"
        if self.kind == "numbers":
            return ",".join(repr(float(v)) for v in value) or "none"
        if self.kind == "zones":
            return ";".join(f"{n}=" + ",".join(repr(float(v)) for v in box) for n, box in value.items()) or "none"
        return str(value)

    def show(self, value: Any) -> str:
        """``value`` for people (``sensekit settings``, toasts): short numbers, unit."""
        if value is None:
            return f"none ({self.none})" if self.none else "none"
        if self.kind in ("float", "int"):
            return f"{float(value):g}" + (f" {self.unit}" if self.unit else "")
        if self.kind == "numbers":
            return f"{len(value)} numbers" if value else "none"
        if self.kind in ("zones", "words"):
            return self.format(value) if value else "none"
        return self.format(value)

    def stepped(self, value: Any, steps: float) -> Any:
        """``value`` moved by ``steps`` key presses (``step`` each), clamped to the range."""
        if self.step is None or self.kind not in ("float", "int") or value is None:
            raise ConfigError(f"`{self.key}` has no key step")
        v = float(value) * self.step ** steps if self.log_step else float(value) + self.step * steps
        if self.lo is not None:
            v = max(float(self.lo), v)
        if self.hi is not None:
            v = min(float(self.hi), v)
        return self.check(round(v) if self.kind == "int" else v)

    def control(self) -> str:
        """How a panel shows a number: ``"linear"`` (a slider and a box), ``"log"`` (a slider in
        powers, for a range over three decades from above 0: ``tracker.min_area_px`` 1..2^30) or
        ``"number"`` (a box only, for a range from 0 too wide for a slider step to mean anything:
        ``activity.timeout_ms`` 0..600,000); ``""`` for what is not a bounded number."""
        if self.kind not in ("float", "int") or self.lo is None or self.hi is None:
            return ""
        lo, hi = float(self.lo), float(self.hi)
        if lo > 0 and hi / lo >= LOG_CONTROL_RATIO:
            return "log"
        if hi - lo >= NUMBER_CONTROL_SPAN:
            return "number"
        return "linear"

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description (``sensekit settings --json``)."""
        default: Any = self.default
        if self.kind == "zones" and default is not None:
            default = {n: list(b) for n, b in default.items()}
        return {"key": self.key, "section": self.section, "name": self.name, "kind": self.kind,
                "default": default, "unit": self.unit, "lo": self.lo, "hi": self.hi,
                "choices": list(self.choices) or None, "none": self.none or None, "step": self.step,
                "log_step": self.log_step, "flag": self.flag, "help": self.help,
                "expects": self.expectation(), "control": self.control()}


def check_zone_name(name: str, where: str) -> str:
    """``name`` if it is printable text, else one ``ConfigError`` line naming the zone (escaped)
    and ``where`` it was given: a newline, a tab or another control character in a zone name
    would reach every motion event, log line, OSC address and file that names the zone."""
    if not name.isprintable():
        raise ConfigError(f"zone {short(name)} in {where} has a control character (a newline, a tab, ...); "
                          "zone names must be printable text")
    return name


def parse_named_boxes(text: str, number: Callable[[str], T], *, bad: Callable[[str], str],
                      twice: Callable[[str], str]) -> dict[str, list[T]]:
    """``"name=x,y,w,h;name2=x,y,w,h"`` -> ``{name: [x, y, w, h]}``, each read by ``number``:
    the one grammar of zones as text (the ``motion.zones`` kind of setting in fractions, the
    pixel zones of ``--zones``). A part that is not ``name=`` and four numbers is a
    ``ConfigError`` worded by ``bad(part)``, a name given twice by ``twice(name)``."""
    boxes: dict[str, list[T]] = {}
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        name, sep, rest = part.partition("=")
        name = name.strip()
        try:
            nums = [number(v) for v in rest.split(",")]
        except ValueError:
            nums = []
        if not sep or not name or len(nums) != 4:
            raise ConfigError(bad(part))
        if name in boxes:
            raise ConfigError(twice(name))
        boxes[name] = nums
    return boxes


def _parse_zones(text: str, key: str) -> dict[str, list[float]]:
    return parse_named_boxes(
        text, float, twice=lambda name: f"`{key}` names zone {short(name)} twice",
        bad=lambda part: f"`{key}` zones must look like 'name=x,y,w,h;...' (fractions 0..1), got {short(part)}")


@dataclass(frozen=True)
class Group:
    """The settings of one detector or app: ``section`` is the first part of every key."""

    section: str
    title: str
    items: tuple[Setting[Any], ...]
    #: cross-setting rule on the merged values (raises ``ConfigError``), e.g. fmin < fmax
    rule: Callable[[Mapping[str, Any]], None] | None = field(default=None, compare=False)
    #: the module that declared the group (``sensekit.vision.motion``, ``sensekit_apps.clapper``)
    module: str = field(default="", compare=False)
    _by_name: dict[str, Setting[Any]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not _NAME_RE.fullmatch(self.section):
            raise ConfigError(f"settings section must be lower_case, got {self.section!r}")
        seen: set[str] = set()
        for s in self.items:
            if s.name in seen:
                raise ConfigError(f"setting `{self.section}.{s.name}` is declared twice")
            seen.add(s.name)
        object.__setattr__(self, "_by_name", {s.name: s for s in self.items})

    def __getitem__(self, name: str) -> Setting[Any]:
        try:
            return self._by_name[name]
        except KeyError:
            if (went := moved(f"{self.section}.{name}")) is not None:
                raise ConfigError(went) from None
            raise ConfigError(f"unknown setting `{self.section}.{clip(str(name))}`; known in [{self.section}]: "
                              f"{', '.join(s.name for s in self.items)}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.items)

    def defaults(self) -> dict[str, Any]:
        return {s.name: s.default for s in self.items}

    def check(self, values: Mapping[str, Any], current: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Check ``values`` (names of this group, native values); then the group's rule on
        ``current`` updated with them. Returns the normalised values; nothing is stored."""
        out = {name: self[name].check(v) for name, v in values.items()}
        if self.rule is not None:
            self.rule({**(current if current is not None else self.defaults()), **out})
        return out


def setting(default: T, help: str, *, kind: Kind | None = None, unit: str = "",
            lo: float | None = None, hi: float | None = None, choices: tuple[str, ...] = (),
            none: str = "", step: float | None = None, log_step: bool = False,
            flag: str | None = None) -> Setting[T]:
    """Declare one setting (a class attribute of a ``Tunable``: its name is the attribute's);
    the kind is inferred from ``default`` or ``choices`` when not given."""
    if kind is None:
        if choices:
            kind = "choice"
        elif isinstance(default, bool):
            kind = "bool"
        elif isinstance(default, int):
            kind = "int"
        elif isinstance(default, float):
            kind = "float"
        elif isinstance(default, str) and default.startswith("#"):
            kind = "color"
        elif isinstance(default, dict):
            kind = "zones"
        else:
            raise ConfigError(f"setting {help!r}: give kind= (cannot infer it from {default!r})")
    if flag is not None and not re.fullmatch(r"--[a-z][a-z0-9-]*", flag):
        raise ConfigError(f"setting {help!r}: flag must look like --name, got {flag!r}")
    return Setting(default=default, help=help, kind=kind, unit=unit, lo=lo, hi=hi,
                   choices=tuple(choices), none=none, step=step, log_step=log_step, flag=flag)


#: section -> group, filled by ``group(...)`` as declaring modules are imported (the table that
#: ``sensekit.settings.registry`` completes and looks keys up in)
REGISTRY: dict[str, Group] = {}


#: modules whose groups replace an existing section's (``stand_in``)
_STANDING_IN: set[str] = set()


def stand_in(module: str) -> None:
    """Let the groups that ``module`` declares replace those of a section that exists: an app
    file run by path (``sensekit run my_copy_of_steer.py``) stands in for the app it was copied
    from, as a later app with the same name does in ``sensekit apps``."""
    _STANDING_IN.add(module)


def register(group: Group) -> Group:
    """Put ``group`` in the table. Re-registering a section with the same settings (an app file
    loaded twice) is allowed, and so is a module that ``stand_in`` named replacing it; any other
    different declaration under a section that exists is a ``ConfigError``."""
    old = REGISTRY.get(group.section)
    if old is not None and old.items != group.items and group.module not in _STANDING_IN:
        by = f"in {old.module} and in {group.module}" if old.module != group.module else \
            f"{old.title!r} and {group.title!r}"
        raise ConfigError(f"settings section `{group.section}` is declared twice, differently ({by})")
    REGISTRY[group.section] = group
    return group


def group(section: str, title: str, items: Mapping[str, Setting[Any]],
          rule: Callable[[Mapping[str, Any]], None] | None = None, *, module: str = "") -> Group:
    """The group of ``items`` (name -> declared setting, in order), checked and registered in
    ``REGISTRY``; ``Tunable`` calls it for each class that names a section."""
    for name in items:
        if not _NAME_RE.fullmatch(name):
            raise ConfigError(f"setting names must be lower_case, got {section}.{name}")
    placed = tuple(replace(s, name=name, section=section) for name, s in items.items())
    g = Group(section, title, placed, rule, module=module)
    for s in placed:                 # the defaults themselves must be valid
        s.check(s.default)
    return register(g)
