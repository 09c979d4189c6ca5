"""Venue profiles: every tuning setting in one TOML file.

A piece comes back to a venue and its tuning is still there: the picked
colour and its tolerance, the motion threshold, the camera and microphone noise
floors, the motion zones, the microphone gain and the activity threshold.
``sensekit calibrate`` writes one; ``--profile venue.toml`` on ``sensekit run``
and ``sensekit events`` reads it; apps save the current one with ``s``.

Example (every key is optional; these are the defaults, ``None`` values are
simply left out of the file)::

    [color]
    target = "#e03c28"        # colour to track, #RRGGBB (default: none)
    tolerance = 12.0          # hue tolerance in degrees 0..180 (ColorTracker's; S and V keep 80)

    [motion]
    threshold = 25.0          # pixel difference 1..255 that counts as motion (default: learned
                              # by the detector, or 5 x noise_floor clamped to 8..96 when set)
    noise_floor = 1.8         # camera noise sigma in pixel levels (learned by calibrate)

    [motion.zones]            # name = [x, y, w, h], fractions 0..1 of the frame (so a
    door = [0.0, 0.0, 0.25, 1.0]   # profile survives a change of camera resolution)

    [audio]
    gain = 50.0               # 0..100, 50 = unity (see sensekit/audio/gain.py)
    threshold = 25.0          # activity level 0..100 (Flash's setSilenceLevel)
    timeout_ms = 500.0        # silence timeout, 0..60000 ms
    noise_floor = 3.1         # ambient activity level 0..100 (learned by calibrate)

Errors: an unknown key, a value of the wrong type or out of range, and a TOML
syntax error are ``ConfigError``s whose message starts with ``FILE:LINE:`` and
names the key (``venue.toml:7: unknown key `audio.gian`; known keys in [audio]:
gain, noise_floor, threshold, timeout_ms``). The line is found by scanning the
TOML text for the key under its table; a key the scan cannot place (unusual
layouts) is reported with the line of its table, or without a line.

Using a profile: ``add_profile_argument(parser)`` adds ``--profile FILE``.
``profile_for_events(args, source)`` fills in the ``sensekit events`` options
that the command line left unset (the command line wins). Then
``apply_profile_to_stages(profile, stages, override=...)`` sets what has no
option (the motion threshold, a seeded audio noise floor). With
``override=True`` (``sensekit run``: apps bring their own defaults) it also sets
the colour, tolerance, gain and activity threshold. ``capture_profile(stages,
base)`` reads the current tuning back from running stages, for an app's save key.

Cost: loading is a ``tomllib`` parse plus a walk over a dozen keys (well under
a millisecond). Saving a new profile uses a small writer in this module; saving
over an existing one edits it in place with ``tomlkit``, so the user's comments,
key order and untouched values survive ``sensekit calibrate`` and ``Shift+S``.
Either way the file is written atomically (temporary file, then rename), so a
crash never leaves half a profile. Needs Python 3.11 (``tomllib``) or the ``tomli`` package.
"""
from __future__ import annotations

import argparse
import dataclasses
import logging
import math
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from sensekit.errors import ConfigError

log = logging.getLogger(__name__)
COLOR_RE = re.compile(r"#[0-9a-fA-F]{6}")
Zone = tuple[float, float, float, float]


def _meta(lo: float | None = None, hi: float | None = None, doc: str = "", kind: str = "") -> dict:
    return {"lo": lo, "hi": hi, "doc": doc, "kind": kind}


@dataclass
class ColorSettings:
    target: str | None = field(default=None, metadata=_meta(kind="color",
                               doc="colour to track, #RRGGBB"))
    tolerance: float = field(default=12.0, metadata=_meta(
        0, 180, "hue tolerance in degrees 0..180 (saturation and value keep 80)"))


@dataclass
class MotionSettings:
    threshold: float | None = field(default=None, metadata=_meta(
        1, 255, "pixel difference 1..255 that counts as motion (none: from the noise floor)"))
    noise_floor: float | None = field(default=None, metadata=_meta(
        0, 255, "camera noise sigma in pixel levels 0..255 (robust, from frame differences)"))
    zones: dict[str, Zone] = field(default_factory=dict, metadata=_meta(
        kind="zones", doc="name = [x, y, w, h], fractions 0..1 of the frame"))


@dataclass
class AudioSettings:
    gain: float = field(default=50.0, metadata=_meta(0, 100, "microphone gain 0..100, 50 = unity"))
    threshold: float = field(default=25.0, metadata=_meta(0, 100, "activity level 0..100"))
    timeout_ms: float = field(default=500.0, metadata=_meta(0, 60000, "silence timeout in ms"))
    noise_floor: float | None = field(default=None, metadata=_meta(
        0, 100, "ambient activity level 0..100"))


@dataclass
class Profile:
    """All tuning settings. ``Profile()`` is the defaults."""
    color: ColorSettings = field(default_factory=ColorSettings)
    motion: MotionSettings = field(default_factory=MotionSettings)
    audio: AudioSettings = field(default_factory=AudioSettings)

    def validate(self) -> "Profile":
        """Check every value (as loading does); raises ``ConfigError`` naming the key."""
        for section in dataclasses.fields(self):
            obj = getattr(self, section.name)
            for f in dataclasses.fields(obj):
                try:
                    value = _check(f"{section.name}.{f.name}", f, getattr(obj, f.name))
                except _Bad as bad:
                    raise ConfigError(bad.message) from None
                setattr(obj, f.name, value)
        return self

    def to_dict(self) -> dict[str, dict[str, Any]]:
        return dataclasses.asdict(self)

    def save(self, path: str | os.PathLike[str]) -> Path:
        return save_profile(self, path)

    def motion_threshold(self) -> int | None:
        """The fixed motion threshold this profile implies: ``motion.threshold`` if set,
        else ``5 x noise_floor`` clamped to 8..96 (the motion detector's own rule), else
        ``None`` (let the detector learn)."""
        if self.motion.threshold is not None:
            return int(round(self.motion.threshold))
        if self.motion.noise_floor is not None:
            return int(round(min(96.0, max(8.0, 5.0 * self.motion.noise_floor))))
        return None

    def zones_px(self, width: int, height: int) -> dict[str, tuple[int, int, int, int]]:
        """``motion.zones`` in pixels for a ``width`` x ``height`` frame (at least 1x1 each)."""
        out = {}
        for name, (x, y, w, h) in self.motion.zones.items():
            px, py = int(round(x * width)), int(round(y * height))
            pw = max(1, min(width - px, int(round(w * width))))
            ph = max(1, min(height - py, int(round(h * height))))
            out[name] = (min(px, width - 1), min(py, height - 1), pw, ph)
        return out


SECTIONS: dict[str, type] = {"color": ColorSettings, "motion": MotionSettings, "audio": AudioSettings}


# --- validation ---------------------------------------------------------------

class _Bad(ValueError):
    """A bad value; ``key`` is the full dotted key, ``message`` says what is wrong."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key, self.message = key, message


def _number(key: str, value: Any, lo: float | None, hi: float | None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad(key, f"`{key}` must be a number {lo:g}..{hi:g}, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or (lo is not None and v < lo) or (hi is not None and v > hi):
        raise _Bad(key, f"`{key}` must be {lo:g}..{hi:g}, got {value!r}")
    return v


def _check(key: str, f: dataclasses.Field, value: Any) -> Any:
    meta = f.metadata
    kind = meta.get("kind", "")
    if value is None:
        if f.default is None:
            return None
        raise _Bad(key, f"`{key}` must not be empty")
    if kind == "color":
        if not isinstance(value, str) or not COLOR_RE.fullmatch(value):
            raise _Bad(key, f"`{key}` must be a colour \"#RRGGBB\", got {value!r}")
        return value.lower()
    if kind == "zones":
        if not isinstance(value, dict):
            raise _Bad(key, f"`{key}` must be a table of name = [x, y, w, h], got {value!r}")
        zones: dict[str, Zone] = {}
        for name, box in value.items():
            zkey = f"{key}.{name}"
            if not isinstance(name, str) or not name.strip() or set(name) & set(",;="):
                raise _Bad(zkey, f"zone names must be non-empty and free of , ; =, got {name!r}")
            if not isinstance(box, (list, tuple)) or len(box) != 4:
                raise _Bad(zkey, f"`{zkey}` must be [x, y, w, h] (4 numbers 0..1), got {box!r}")
            x, y, w, h = (_number(zkey, v, 0.0, 1.0) for v in box)
            if w <= 0 or h <= 0 or x + w > 1.0 + 1e-9 or y + h > 1.0 + 1e-9:
                raise _Bad(zkey, f"`{zkey}` must have w, h > 0 and lie inside the frame "
                                 f"(x + w <= 1, y + h <= 1), got {list(box)!r}")
            zones[name] = (x, y, w, h)
        return zones
    return _number(key, value, meta.get("lo"), meta.get("hi"))


# --- loading ------------------------------------------------------------------

_HEADER_RE = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_KEY_RE = re.compile(r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=""")


def _split_key(text: str) -> tuple[str, ...]:
    parts = re.findall(r"""[A-Za-z0-9_-]+|"[^"]*"|'[^']*'""", text)
    return tuple(p[1:-1] if p[:1] in "\"'" else p for p in parts)


def find_line(text: str, key: str) -> int | None:
    """1-based line where dotted ``key`` is set; else the line of its deepest enclosing
    table or inline table; ``None`` if nothing matches."""
    want = tuple(key.split("."))
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


def profile_from_dict(data: dict[str, Any], *, path: str = "<profile>", text: str = "") -> Profile:
    """Build and validate a ``Profile`` from parsed TOML; errors name key, file and line."""
    profile = Profile()
    for name, value in data.items():
        cls = SECTIONS.get(name)
        if cls is None:
            raise ConfigError(f"{_where(path, text, name)}: unknown key `{name}`; "
                              f"known tables: {', '.join(SECTIONS)}")
        if not isinstance(value, dict):
            raise ConfigError(f"{_where(path, text, name)}: `{name}` must be a table "
                              f"([{name}]), got {value!r}")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        section = getattr(profile, name)
        for key, v in value.items():
            full = f"{name}.{key}"
            f = fields.get(key)
            if f is None:
                raise ConfigError(f"{_where(path, text, full)}: unknown key `{full}`; "
                                  f"known keys in [{name}]: {', '.join(sorted(fields))}")
            try:
                setattr(section, key, _check(full, f, v))
            except _Bad as bad:
                raise ConfigError(f"{_where(path, text, bad.key)}: {bad.message}") from None
    return profile


def load_profile(path: str | os.PathLike[str]) -> Profile:
    """Read and validate a venue profile. Raises ``ConfigError`` (never a TOML or OS error)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"profile {str(p)!r} does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:   # ValueError: a NUL in the name
        raise ConfigError(f"cannot read profile {str(p)!r}: {exc}") from None
    return loads_profile(text, path=str(p))


def loads_profile(text: str, *, path: str = "<profile>") -> Profile:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        where = f"{path}:{m.group(1)}" if m else path
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ConfigError(f"{where}: not valid TOML: {reason}") from None
    return profile_from_dict(data, path=path, text=text)


# --- saving -------------------------------------------------------------------

_BARE_RE = re.compile(r"[A-Za-z0-9_-]+")


def _toml_key(k: str) -> str:
    return k if _BARE_RE.fullmatch(k) else _toml_str(k)


def _toml_str(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ConfigError(f"cannot save a non-finite number {v!r}")
        return repr(v)
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise ConfigError(f"cannot save {v!r} in a profile")


def dumps_profile(profile: Profile) -> str:
    """TOML text for ``profile`` with a comment per key; ``None`` values are left out."""
    profile.validate()
    lines = ["# sensekit venue profile (see sensekit/profile.py for every key)"]
    for sname in SECTIONS:
        section = getattr(profile, sname)
        lines += ["", f"[{sname}]"]
        tables: list[tuple[str, dict]] = []
        for f in dataclasses.fields(section):
            v = getattr(section, f.name)
            if isinstance(v, dict):
                tables.append((f.name, v))
                continue
            if v is None:
                lines.append(f"# {f.name}: {f.metadata.get('doc', '')} (not set)")
                continue
            lines.append(f"{_toml_key(f.name)} = {_toml_value(v)}  # {f.metadata.get('doc', '')}")
        for tname, table in tables:
            lines += ["", f"[{sname}.{_toml_key(tname)}]"]
            for k, v in table.items():
                lines.append(f"{_toml_key(k)} = {_toml_value(list(v))}")
    return "\n".join(lines) + "\n"


def edit_profile_text(text: str, profile: Profile) -> str:
    """``text`` (an existing profile) with the values of ``profile`` written into it.

    Edited with tomlkit, so comments, blank lines, the order of keys and tables and the
    way unchanged values are written all stay as the user left them: a key whose value
    is unchanged is not touched, a changed one keeps its trailing comment, a new one is
    appended to its table (a missing table is appended to the file), and a zone that
    ``profile`` no longer has is removed. Raises ``ConfigError`` if ``text`` is not TOML.
    """
    import tomlkit

    profile.validate()
    try:
        doc = tomlkit.parse(text)
    except Exception as exc:  # tomlkit raises its own ParseError subclasses
        raise ConfigError(f"not valid TOML: {exc}") from None
    old = profile_from_dict(doc.unwrap())
    for sname in SECTIONS:
        section, before = getattr(profile, sname), getattr(old, sname)
        if sname not in doc:
            if all(getattr(section, f.name) in (None, {}) for f in dataclasses.fields(section)):
                continue
            doc.add(sname, tomlkit.table())
        table = doc[sname]
        for f in dataclasses.fields(section):
            value, was = getattr(section, f.name), getattr(before, f.name)
            if isinstance(value, dict):
                _edit_zones(table, f.name, value)
            elif value is None:
                if f.name in table:
                    del table[f.name]
            elif value != was or f.name not in table:
                table[f.name] = value
    return tomlkit.dumps(doc)


def _edit_zones(table: Any, name: str, zones: dict[str, Zone]) -> None:
    import tomlkit

    if not zones and name not in table:
        return
    if name not in table:
        table.add(name, tomlkit.table())
    current = table[name]
    for zone in [z for z in current if z not in zones]:
        del current[zone]
    for zone, box in zones.items():
        if zone not in current or tuple(float(v) for v in current[zone]) != tuple(box):
            current[zone] = list(box)


def save_profile(profile: Profile, path: str | os.PathLike[str]) -> Path:
    """Write ``profile`` to ``path`` atomically; returns the path.

    An existing profile is edited in place (``edit_profile_text``: the user's comments,
    order and untouched keys stay); a new one gets the commented layout of
    ``dumps_profile``. A symlink is followed and the file keeps its permissions.
    """
    p = Path(path)
    target = p.resolve() if p.is_symlink() else p
    mode = 0o644
    if target.is_file():
        mode = target.stat().st_mode & 0o7777
        try:
            old_text = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read profile {str(p)!r}: {exc}") from None
        try:
            text = edit_profile_text(old_text, profile)
        except ConfigError as exc:
            raise ConfigError(f"{p}: {exc}") from None
    else:
        text = dumps_profile(profile)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return p


# --- using a profile from the CLI -----------------------------------------------------

_ZONE_NAME_FORBIDDEN = set(",;=")
_DEFAULT_TOLERANCE_ARG = "12,80,80"   # sensekit.vision.options' default for --tolerance


def add_profile_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--profile FILE`` (used by ``sensekit run`` and ``sensekit events``)."""
    parser.add_argument("--profile", type=Path, metavar="FILE",
                        help="venue profile (TOML) with colours, thresholds, noise floors, "
                             "zones and gain (see `sensekit calibrate`)")


def profile_for_events(args: argparse.Namespace, source: Any) -> Profile | None:
    """Load ``--profile`` and fill in the ``sensekit events`` options it covers.

    Options given on the command line win. The profile fills in ``--track-color``
    (if absent), ``--tolerance`` (if left at its default; the hue comes from the
    profile and S, V stay 80), ``--zones`` (if absent and ``--motion`` is on;
    converted to pixels of the source's frame) and ``--gain`` (if absent). The
    profile alone never turns a stage on, except that a target colour turns on
    tracking. Call ``apply_profile_to_stages`` after the stages are built.
    """
    path = getattr(args, "profile", None)
    if path is None:
        return None
    profile = load_profile(path)
    if profile.color.target and getattr(args, "track_color", "unset") is None \
            and getattr(args, "track_box", None) is None:
        args.track_color = profile.color.target
    if getattr(args, "tolerance", None) == _DEFAULT_TOLERANCE_ARG:
        args.tolerance = f"{profile.color.tolerance:g},80,80"
    size = getattr(source, "frame_size", None)
    if (profile.motion.zones and getattr(args, "motion", False)
            and getattr(args, "zones", "unset") is None and size):
        args.zones = ";".join(f"{name}={x},{y},{w},{h}"
                              for name, (x, y, w, h) in profile.zones_px(*size).items())
    if hasattr(args, "gain") and args.gain is None:
        args.gain = profile.audio.gain
    return profile


def apply_profile_to_stages(profile: Profile | None, stages: list[Any], *,
                            override: bool = False) -> list[str]:
    """Apply ``profile`` to built stages; returns one line per setting applied.

    Always: the motion threshold (``Profile.motion_threshold()``) on detectors that
    would otherwise learn it, and the audio noise floor (seeded, so floor-relative
    thresholds work from the first block). With ``override=True`` (apps, whose
    stages come with built-in defaults): the colour and hue tolerance of colour
    trackers that track a colour, the gain, and the activity threshold and timeout.
    Stages are recognised by their attributes (``tracker``, ``motion``, ``meter``,
    ``activity``, ``noise_floor``); anything else is left alone.
    """
    if profile is None:
        return []
    done: list[str] = []
    threshold = profile.motion_threshold()
    for stage in stages:
        tracker = getattr(stage, "tracker", None)
        if override and tracker is not None and profile.color.target \
                and getattr(tracker, "method", None) in (None, "hsv", "exact"):
            from sensekit.vision.color_tracker import parse_tolerance
            _, s, v = getattr(tracker, "tolerance", (12.0, 80.0, 80.0))
            tracker.tolerance = parse_tolerance((profile.color.tolerance, s, v))
            tracker.set_color(profile.color.target)
            done.append(f"colour {profile.color.target} (hue tolerance {profile.color.tolerance:g})")
        motion = getattr(stage, "motion", None)
        if threshold is not None and motion is not None \
                and getattr(motion, "fixed_threshold", 0) is None:
            motion.fixed_threshold = threshold
            done.append(f"motion threshold {threshold}")
        if override and hasattr(stage, "set_gain") and hasattr(stage, "meter"):
            stage.set_gain(profile.audio.gain)
            done.append(f"gain {profile.audio.gain:g}")
        activity = getattr(stage, "activity", None)
        if override and activity is not None and hasattr(activity, "set_silence_level"):
            activity.set_silence_level(profile.audio.threshold, profile.audio.timeout_ms)
            done.append(f"activity threshold {profile.audio.threshold:g}, "
                        f"timeout {profile.audio.timeout_ms:g} ms")
        floor = getattr(stage, "noise_floor", None)
        if profile.audio.noise_floor is not None and floor is not None \
                and hasattr(floor, "calibrate"):
            floor.calibrate([profile.audio.noise_floor])
            done.append(f"audio noise floor {profile.audio.noise_floor:g}")
    for line in done:
        log.info("profile: %s", line)
    return done


def capture_profile(stages: list[Any], base: Profile | None = None) -> Profile:
    """The current tuning of running ``stages`` as a profile (for an app's save key).

    Starts from a copy of ``base`` (default ``Profile()``), then reads what the stages use now:
    the colour and hue tolerance of colour trackers, the motion threshold in use (learned
    ones are frozen), the gain, the activity threshold and timeout, and the learned audio
    noise floor. Zones are kept from ``base``.
    """
    p = dataclasses.replace(base) if base is not None else Profile()
    p.color = dataclasses.replace(p.color)
    p.motion = dataclasses.replace(p.motion, zones=dict(p.motion.zones))
    p.audio = dataclasses.replace(p.audio)
    for stage in stages:
        tracker = getattr(stage, "tracker", None)
        if tracker is not None and getattr(tracker, "color", None) is not None:
            p.color.target = f"#{int(tracker.color) & 0xFFFFFF:06x}"
            p.color.tolerance = float(tracker.tolerance[0])
        motion = getattr(stage, "motion", None)
        if motion is not None and hasattr(motion, "threshold"):
            p.motion.threshold = float(min(255.0, max(1.0, round(float(motion.threshold)))))
        meter = getattr(stage, "meter", None)
        if meter is not None and hasattr(meter, "gain"):
            p.audio.gain = float(meter.gain)
        activity = getattr(stage, "activity", None)
        if activity is not None and hasattr(activity, "silence_level"):
            p.audio.threshold = float(activity.silence_level)
            p.audio.timeout_ms = float(activity.timeout_ms)
        floor = getattr(stage, "noise_floor", None)
        if floor is not None and getattr(floor, "ready", False):
            p.audio.noise_floor = round(float(floor.level), 3)
    return p.validate()
