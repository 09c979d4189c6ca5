"""Events to MIDI messages, by a small mapping kept in the venue profile's ``[midi]`` table.

::

    [midi]
    port = "sensekit"          # output port (a part of its name); absent: the first port
    channel = 1                # 1..16

    [midi.map]
    clap = "note 60"           # every clap: note 60 on (velocity 100) and off
    zone_enter = "note 64 90"  # velocity 90
    "blobs.count" = "cc 1"     # the number of blobs as controller 1 (0..127, clamped)
    "level.db" = "cc 7 -60..0" # the level, -60..0 dB scaled to 0..127

A key is an event name (docs/events.md; ``python -m sensekit.osc`` prints them all) for a note, or
``EVENT.FIELD`` (a number field of that event) for a control change, sent when its value
changes. ``parse_mapping(table)`` checks it all and returns a ``MidiMapper`` whose
``messages(event)`` gives the ``mido.Message`` list for one event. Errors are
``ConfigError``s naming the key and the value; ``load_midi(path)`` adds the profile's
FILE:LINE. Needs ``mido`` (the ``midi`` extra); cost: a dict lookup per event.
"""
from __future__ import annotations

import dataclasses
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from sensekit.arg_types import checked
from sensekit.errors import ConfigError
from sensekit.events import EVENT_TYPES, Event
from sensekit.installed import install_hint
from sensekit.safe_read import MAX_NUMBER_DIGITS as MAX_DIGITS
from sensekit.safe_read import clip, short
from sensekit.suggest import backticked, close_matches, did_you_mean

__all__ = ["Rule", "MidiMapper", "parse_rule", "parse_mapping", "load_midi", "MidiSettings", "require_mido"]

#: names people reach for that are spelt differently here
_ALIASES = {"blob": "blobs"}
_RULE_RE = re.compile(r"^\s*(note|cc)\s+(\d+)(?:\s+(\d+))?(?:\s+(-?[\d.]+)\s*\.\.\s*(-?[\d.]+))?\s*$")


def require_mido() -> Any:
    """The ``mido`` module, or a one-line error naming the install."""
    try:
        import mido
    except ModuleNotFoundError:
        raise ConfigError(f"MIDI needs mido and python-rtmidi: {install_hint('midi')}") from None
    return mido


@dataclass(frozen=True, slots=True)
class Rule:
    """One mapping: an event (and field) to a note or a control change on a channel (0..15)."""
    key: str
    event: str
    field: str | None
    kind: Literal["note", "cc"]
    number: int
    channel: int = 0
    velocity: int = 100
    lo: float = 0.0
    hi: float = 127.0

    def scale(self, value: float) -> int | None:
        """``value`` from ``lo..hi`` to 0..127, clamped (infinities and huge values too);
        ``None`` for a NaN (nothing to send)."""
        span = self.hi - self.lo
        v = (float(value) - self.lo) / span * 127.0 if span else 0.0
        if math.isnan(v):
            return None
        return int(round(max(0.0, min(127.0, v))))


def _known_event(name: str, key: str) -> str:
    name = _ALIASES.get(name, name)
    if name not in EVENT_TYPES:
        close = did_you_mean(close_matches(name, EVENT_TYPES), quote=backticked)
        hint = f" ({close})" if close else f"; events: {', '.join(sorted(EVENT_TYPES))}"
        raise ConfigError(f"MIDI map `{clip(key)}`: unknown event `{clip(name)}`{hint}")
    return name


def _small(digits: str, most: int, what: str) -> int:
    """A run of digits as an int at most ``most`` (checked before ``int()`` reads it: Python
    refuses more than 4,300 digits with a ``ValueError``)."""
    n = int(digits) if len(digits) <= 6 else most + 1
    if n > most:
        raise ConfigError(f"{what}, got {digits if len(digits) <= 20 else digits[:17] + '...'}")
    return n


def _range(key: str, text: str, lo: str, hi: str) -> tuple[float, float]:
    """``LO..HI`` as two finite numbers of at most 40 digits, or a one-line ``ConfigError``."""
    where = f"MIDI map `{key}`: the range {short(text, 40)}"
    if any(len(re.sub(r"\D", "", part)) > MAX_DIGITS for part in (lo, hi)):
        raise ConfigError(f"{where} has a number of more than {MAX_DIGITS} digits (at most {MAX_DIGITS} digits)")
    try:
        low, high = float(lo), float(hi)
    except ValueError:
        raise ConfigError(f"{where} must be LO..HI, two numbers (e.g. -60..0)") from None
    return low, high


def parse_rule(key: str, text: Any, *, channel: int = 0) -> Rule:
    """One ``key = "note N [VELOCITY]"`` or ``key = "cc N [LO..HI]"`` entry. The key and the
    text are quoted cut short (a key of 5,000 characters made a message of as many)."""
    k = clip(key)
    if not isinstance(text, str) or not (m := _RULE_RE.match(text)):
        raise ConfigError(f"MIDI map `{k}` must be \"note N [VELOCITY]\" or \"cc N [LO..HI]\", got {short(text)}")
    kind, number, velocity, lo, hi = m.groups()
    n = _small(number, 127, f"MIDI map `{k}`: {kind} number must be 0..127")
    event, _, field = key.partition(".")
    event = _known_event(event, key)
    if kind == "note":
        if field or lo is not None:
            raise ConfigError(f"MIDI map `{k}`: a note is played for an event (`{event} = \"note {n}\"`); "
                              f"a field's value goes to a cc")
        vel = 100 if velocity is None else _small(velocity, 127, f"MIDI map `{k}`: velocity must be 1..127")
        if not 1 <= vel <= 127:
            raise ConfigError(f"MIDI map `{k}`: velocity must be 1..127, got {vel}")
        return Rule(key, event, None, "note", n, channel, velocity=vel)
    if not field:
        raise ConfigError(f"MIDI map `{k}`: a cc needs a number field, `{event}.FIELD`")
    fields = {f.name: f for f in dataclasses.fields(EVENT_TYPES[event])}
    if field not in fields or fields[field].type not in ("int", "float"):
        numbers = [f for f, d in fields.items() if d.type in ("int", "float")]
        raise ConfigError(f"MIDI map `{k}`: `{event}` has no number field `{clip(field)}`; "
                          f"its number fields: {', '.join(numbers) or 'none'}")
    if velocity is not None:
        raise ConfigError(f"MIDI map `{k}`: a cc takes a range LO..HI, not a velocity, got {short(text)}")
    low, high = (0.0, 127.0) if lo is None else _range(k, text.split()[-1], lo, hi)
    if low == high:
        raise ConfigError(f"MIDI map `{k}`: the range {short(text.split()[-1])} is empty")
    return Rule(key, event, field, "cc", n, channel, lo=low, hi=high)


class MidiMapper:
    """``messages(event)``: the MIDI messages the rules give for one event."""

    @checked
    def __init__(self, rules: list[Rule]) -> None:
        self.mido = require_mido()
        self.rules = rules
        self._by_event: dict[str, list[Rule]] = {}
        for r in rules:
            self._by_event.setdefault(r.event, []).append(r)
        self._last: dict[str, int] = {}

    @property
    def events(self) -> frozenset[str]:
        """The event names the mapping listens to."""
        return frozenset(self._by_event)

    def messages(self, event: Event) -> list[Any]:
        out: list[Any] = []
        Message = self.mido.Message
        for r in self._by_event.get(event.name, ()):
            if r.kind == "note":
                out.append(Message("note_on", channel=r.channel, note=r.number, velocity=r.velocity))
                out.append(Message("note_off", channel=r.channel, note=r.number, velocity=0))
                continue
            value = r.scale(getattr(event, r.field or ""))
            if value is not None and self._last.get(r.key) != value:
                self._last[r.key] = value
                out.append(Message("control_change", channel=r.channel, control=r.number, value=value))
        return out


@dataclass(frozen=True)
class MidiSettings:
    """The ``[midi]`` table: the port to open and the mapping."""
    port: str | None
    mapper: MidiMapper


def parse_mapping(table: Mapping[str, Any]) -> MidiSettings:
    """The ``[midi]`` table (``port``, ``channel``, ``map``) -> ``MidiSettings``."""
    unknown = sorted(set(table) - {"port", "channel", "map"})
    if unknown:
        raise ConfigError(f"unknown key `midi.{clip(unknown[0])}`; known keys in [midi]: channel, map, port")
    channel = table.get("channel", 1)
    if isinstance(channel, bool) or not isinstance(channel, int) or not 1 <= channel <= 16:
        raise ConfigError(f"`midi.channel` must be 1..16, got {short(channel)}")
    port = table.get("port")
    if port is not None and not isinstance(port, str):
        raise ConfigError(f"`midi.port` must be a port name, got {short(port)}")
    rules_table = table.get("map", {})
    if not isinstance(rules_table, Mapping) or not rules_table:
        raise ConfigError("`midi.map` must be a table of EVENT = \"note N\" / \"EVENT.FIELD\" = \"cc N\", "
                          f"got {short(rules_table)}")
    rules = [parse_rule(str(k), v, channel=channel - 1) for k, v in rules_table.items()]
    return MidiSettings(port, MidiMapper(rules))


def load_midi(path: str | os.PathLike[str], *, text: str | None = None) -> MidiSettings:
    """The ``[midi]`` table of a venue profile; errors start with FILE:LINE. ``text``: the
    profile's text as the command already read it (``cli.profile_read``), not read again."""
    from sensekit.profile.load import MAX_PROFILE_DEPTH, find_line, profile_text
    from sensekit.safe_read import check_nesting

    p = Path(path)
    if text is None:
        text = profile_text(p)              # as the profile is read: a regular file, at most 1 MB
    check_nesting(text, toml=True, what=f"{p}: the profile", max_depth=MAX_PROFILE_DEPTH)
    try:
        data = tomllib.loads(text)
    except ValueError as exc:               # TOMLDecodeError is a ValueError
        raise ConfigError(f"cannot read the MIDI map in {str(p)!r}: {exc}") from None
    table = data.get("midi")
    if not isinstance(table, Mapping):
        raise ConfigError(f"{p}: no [midi] table (the MIDI map: [midi.map] clap = \"note 60\")")
    try:
        return parse_mapping(table)
    except ConfigError as exc:
        m = re.search(r"`(midi\.[^`]+|[a-z_]+(?:\.[a-z_]+)?)`", str(exc))
        key = m.group(1) if m else "midi"
        # a map key (`clap`, `blobs.count`) is one quoted key of [midi.map], dots and all
        parts = tuple(key.split(".")) if key.startswith("midi.") else ("midi", "map", key)
        line = find_line(text, parts) or find_line(text, "midi")
        raise ConfigError(f"{p}:{line}: {exc}" if line else f"{p}: {exc}") from None
