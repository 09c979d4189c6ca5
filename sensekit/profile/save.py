"""Writing venue profiles: a new file laid out with help comments, or an existing one edited in place.

``save_profile(values, path)`` writes ``{key: value}`` (checked against the table) to ``path``:

- a new file gets one table per settings group, with the group's title and, per key, its
  help and range as comments;
- an existing file is edited with tomlkit, so the user's comments, blank lines, the order of
  keys and tables and the way unchanged values are written all stay: a key whose value is
  unchanged is not touched, a changed one keeps its trailing comment and is written where it
  already is (under its older name too, ``[audio] threshold``), a new one is appended to its
  table (a missing table is appended to the file), and zones that are gone are removed.
  Keys of the file that ``values`` does not name are left alone.

``run_values(tuning, base)`` is what a running piece saves (Shift+S in an app, "save" in the
browser panel): the keys of the profile it started from, what it changed, what it learned. The
values are read on the run's thread and written later on another (``app/profile_saver.py``, the
panel's server), so two saves of one run can be written in the other order than they were read:
``RunValues`` carries the order they were read in (``read_at``), and ``save_profile`` writes a
key only if no save read later has written it to that file already. A Shift+S whose file was
written after a newer panel save (or the reverse) used to put the older values back.

An optional setting set to nothing is written as ``"none"``. The file is written atomically
(temporary file, fsync, rename) with a first and a last line that mark it whole
(``seal.py``: a copy of it cut short is refused when loaded), a symlink is followed and
the file keeps its permissions, so a crash never leaves half a profile. Errors: ``ConfigError``
for a bad value or an existing file that is not a valid profile (the message names file, line and key).
"""
from __future__ import annotations

import contextlib
import fcntl
import functools
import itertools
import math
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Iterable, Mapping, TypeVar

from sensekit.errors import ConfigError
from sensekit.profile.load import DEPRECATED, LEGACY_KEYS, legacy_name, profile_from_dict, profile_text
from sensekit.atomic import replace_file
from sensekit.profile.seal import seal
from sensekit.safe_read import file_kind, short
from sensekit.settings.live import Tuning, check_values
from sensekit.settings.registry import REGISTRY, lookup, split_key

__all__ = ["RunValues", "save_profile", "save_taught_gestures", "save_table", "dumps_profile",
           "edit_profile_text", "run_values"]

_F = TypeVar("_F", bound=Callable[..., Any])
#: one save at a time in this process: each reads the file, edits it and renames a new one over
#: it, so two at once (the panel's sound card saving on a server thread while "Save venue
#: profile" saves on the run's thread) kept only one of the two edits (39 of 40 tries); other
#: programs are waited for through a lock on the folder (``_folder_lock``)
_SAVING = threading.RLock()


#: the order in which a running piece's values were read (``RunValues.read_at``)
_READS = itertools.count(1)
#: per profile written (its real path): key -> ``read_at`` of the values last written there
_WRITTEN: dict[str, dict[str, int]] = {}


class RunValues(dict[str, Any]):
    """What ``run_values`` reads (``{key: value}``), numbered in the order it was read
    (``read_at``): ``save_profile`` does not write a key over a value read later. ``carried``:
    the keys of the profile the run started from that it neither changed nor learned (written
    back as they were: their tables are not named as sensekit's in the saved file, ``seal.WROTE``)."""

    def __init__(self, values: Mapping[str, Any], carried: Iterable[str] = ()) -> None:
        super().__init__(values)
        self.read_at = next(_READS)
        self.carried = frozenset(carried)


def _not_older(values: Mapping[str, Any], target: Path) -> tuple[Mapping[str, Any], int | None]:
    """``values`` without the keys a save read after them has written to ``target``, and their
    ``read_at`` (None for values that are not a ``RunValues``: written whole, as before)."""
    read_at = getattr(values, "read_at", None)
    if not isinstance(read_at, int):
        return values, None
    written = _WRITTEN.get(os.path.realpath(target), {})
    return {k: v for k, v in values.items() if written.get(k, 0) < read_at}, read_at


def _note_written(values: Mapping[str, Any], target: Path, read_at: int | None) -> None:
    if read_at is not None:
        written = _WRITTEN.setdefault(os.path.realpath(target), {})
        for key in values:
            written[key] = max(written.get(key, 0), read_at)


#: a save waits at most this long for another program's save of a profile in the same folder
OTHER_WRITER_WAIT_S = 30.0
_HELD = [0]                 # saves in hand in this process (nested: one lock of the folder)


@contextlib.contextmanager
def _folder_lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """Take turns with other programs saving a profile in ``path``'s folder: an advisory lock
    (``flock``) on the folder itself, held while the file is read, edited and renamed (the rename
    replaces the file, so the file could not carry the lock). A folder that cannot be opened (not
    there yet) is not locked. One that stays locked for ``OTHER_WRITER_WAIT_S`` is a one-line
    ``ConfigError``, not a hang."""
    p = Path(path)
    folder = (p.resolve() if p.is_symlink() else p).parent
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        yield
        return
    try:
        deadline = time.monotonic() + OTHER_WRITER_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ConfigError(f"cannot save the profile {short(str(p))}: another program has been "
                                      f"saving in its folder for {OTHER_WRITER_WAIT_S:g} s") from None
                time.sleep(0.02)
            except OSError:                     # no locks there (some network file systems): as before
                break
        yield
    finally:
        os.close(fd)                            # releases the lock


def _one_at_a_time(path_at: int) -> Callable[[_F], _F]:
    """One save at a time: in this process (``_SAVING``) and with other programs saving in the
    same folder (``_folder_lock`` on the path, argument ``path_at``)."""
    def wrap(fn: _F) -> _F:
        @functools.wraps(fn)
        def locked(*args: Any, **kwargs: Any) -> Any:
            with _SAVING:
                if _HELD[0]:                    # a save inside a save: the folder is locked already
                    return fn(*args, **kwargs)
                _HELD[0] += 1
                try:
                    with _folder_lock(args[path_at] if len(args) > path_at else kwargs["path"]):
                        return fn(*args, **kwargs)
                finally:
                    _HELD[0] -= 1
        return locked  # type: ignore[return-value]
    return wrap


HEADER = ("sensekit venue profile: any setting of `sensekit settings`, by table and key.",
          "Edit by hand or with `sensekit calibrate` / Shift+S in an app (comments are kept).")


def _toml_value(setting_kind: str, value: Any) -> Any:
    if value is None:
        return "none"
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"cannot save a non-finite number {value!r}")
    if isinstance(value, tuple):
        return list(value)
    return value


def _new_table(section: str) -> Any:
    import tomlkit

    table = tomlkit.table()
    group = REGISTRY.get(section)
    if group is not None:
        table.comment(group.title)
    return table


def _zones_table(zones: Mapping[str, Any]) -> Any:
    import tomlkit

    table = tomlkit.table()
    for name, box in zones.items():
        table.add(name, [float(v) for v in box])
    return table


def dumps_profile(values: Mapping[str, Any]) -> str:
    """TOML text for ``values`` (``{key: value}``), one commented table per group."""
    import tomlkit

    checked = check_values(values)
    doc = tomlkit.document()
    for line in HEADER:
        doc.add(tomlkit.comment(line))
    for key in sorted(checked, key=lambda k: split_key(k)):
        section, name = split_key(key)
        s = lookup(key)
        if section not in doc:
            doc.add(tomlkit.nl())
            doc.add(section, _new_table(section))
        table = doc[section]
        if s.kind == "zones":
            zones = _zones_table(checked[key] or {})
            zones.comment(s.help)
            table.add(name, zones)
            continue
        table.add(name, _toml_value(s.kind, checked[key]))
        table.item(name).comment(f"{s.help}; {s.expectation()}")
    return tomlkit.dumps(doc)


def _edit_zones(table: Any, name: str, zones: Mapping[str, Any]) -> None:
    if not zones and name not in table:
        return
    if name not in table:
        table.add(name, _zones_table({}))
    current = table[name]
    for zone in [z for z in current if z not in zones]:
        del current[zone]
    for zone, box in zones.items():
        if zone not in current or tuple(float(v) for v in current[zone]) != tuple(box):
            current[zone] = [float(v) for v in box]


def edit_profile_text(text: str, values: Mapping[str, Any]) -> str:
    """``text`` (an existing profile) with ``values`` written into it (see the module docstring)."""
    import tomlkit

    checked = check_values(values)
    try:
        doc = tomlkit.parse(text)
    except Exception as exc:  # tomlkit raises its own ParseError subclasses
        raise ConfigError(f"not valid TOML: {exc}") from None
    old = profile_from_dict(doc.unwrap(), text=text)
    for key, value in checked.items():
        section, name = split_key(key)
        s = lookup(key)
        where = (section, name)
        old_name = legacy_name(key)
        if not (section in doc and name in doc[section]) and old_name is not None:
            old_section, old_key = split_key(old_name)
            if old_section in doc and old_key in doc[old_section]:
                if LEGACY_KEYS[old_name][1] is None and old_name not in DEPRECATED:
                    where = (old_section, old_key)          # keep writing it where the user has it
                else:                                        # a converted unit, a deprecated key: the new key
                    del doc[old_section][old_key]
        if key in old and old[key] == value and where[0] in doc and where[1] in doc[where[0]]:
            continue
        if where[0] not in doc:
            doc.add(tomlkit.nl())
            doc.add(where[0], _new_table(where[0]))
        table = doc[where[0]]
        if s.kind == "zones":
            _edit_zones(table, where[1], value or {})
        else:
            table[where[1]] = _toml_value(s.kind, value)
    return tomlkit.dumps(doc)


def run_values(tuning: Tuning, base: Mapping[str, Any] | None = None) -> RunValues:
    """What a run saves (Shift+S, the panel's "save"): the keys of the profile it started from
    (``base``, at their current values), every setting changed through the table, and what the
    detectors learned, numbered in the order read (``RunValues``). A key of the profile that the
    program itself set to nothing keeps the profile's value: a click starts a new tracker
    without ``tracker.color`` (what it picked is state, not a setting), and saving must not turn
    the venue's colour into "none"."""
    current = tuning.settings()
    values = {key: value if current.get(key, value) is None else current.get(key, value)
              for key, value in (base or {}).items()}
    changed, learned = tuning.changed(), tuning.learned()
    values.update(changed)
    for key, value in learned.items():
        values.setdefault(key, value)
    return RunValues(values, carried=[k for k in base or {} if k not in changed and k not in learned])


def with_taught_gestures(text: str, model: Mapping[str, Any]) -> str:
    """``text`` (a profile) with its ``[taught_gestures]`` table replaced by ``model``."""
    import tomlkit

    from sensekit.profile.load import TAUGHT_TABLE

    doc = tomlkit.parse(text)
    if TAUGHT_TABLE in doc:
        del doc[TAUGHT_TABLE]
    table = tomlkit.table()
    table.add(tomlkit.comment("written by `sensekit teach gesture`: the examples of each taught gesture"))
    for key, value in model.items():
        table[key] = value
    doc.add(tomlkit.nl())
    doc.add(TAUGHT_TABLE, table)
    return tomlkit.dumps(doc)


@_one_at_a_time(1)
def save_profile(values: Mapping[str, Any], path: str | os.PathLike[str], *,
                 taught_gestures: Mapping[str, Any] | None = None) -> Path:
    """Write ``values`` to ``path`` atomically (a new commented file, or the existing one
    edited in place), and ``taught_gestures`` as its ``[taught_gestures]`` table when given;
    returns the path. Of ``RunValues``, a key a later-read save already wrote is left as it is."""
    p = Path(path)
    target = p.resolve() if p.is_symlink() else p
    carried: frozenset[str] = getattr(values, "carried", frozenset())
    values, read_at = _not_older(values, target)
    mode = 0o644
    if target.is_file():
        mode = target.stat().st_mode & 0o7777
        old_text = profile_text(target)     # as loading reads it: regular, at most 1 MB
        try:
            text = edit_profile_text(old_text, values)
        except ConfigError as exc:
            message = str(exc)
            raise ConfigError(message.replace("<profile>", str(p)) if "<profile>" in message
                              else f"{p}: {message}") from None
    else:
        text = dumps_profile(values)
    if taught_gestures is not None:
        text = with_taught_gestures(text, taught_gestures)
    from sensekit.profile.load import TAUGHT_TABLE

    wrote = {split_key(k)[0] for k in values if k not in carried}
    if taught_gestures is not None:
        wrote.add(TAUGHT_TABLE)
    _write_atomic(target, text, mode, wrote)
    _note_written(values, target, read_at)
    return p


@_one_at_a_time(0)
def save_taught_gestures(path: str | os.PathLike[str], model: Mapping[str, Any]) -> Path:
    """Keep ``model`` (``TaughtGestures.to_dict()``) as the ``[taught_gestures]`` table of the
    profile at ``path``, the rest of the file as it is (a new file when there is none): what
    ``sensekit teach gesture --profile`` and the panel's teach card both write."""
    from sensekit.profile.load import load_profile

    old = load_profile(path) if Path(path).is_file() else {}
    return save_profile(dict(old), path, taught_gestures=model)


@_one_at_a_time(0)
def save_table(path: str | os.PathLike[str], name: str, tables: Mapping[str, Mapping[str, Any]], *,
               replace: bool = False) -> Path:
    """Set ``[name.KEY]`` tables of learned data (``DATA_TABLES``: taught sounds) in the profile at
    ``path``, keeping the rest of the file (a new file when there is none); atomic. ``replace``:
    drop the ``[name.KEY]`` tables that ``tables`` does not hold (taught words are replaced whole)."""
    import tomlkit

    p = Path(path)
    target = p.resolve() if p.is_symlink() else p
    mode = 0o644
    doc: Any = tomlkit.document()
    if target.is_file():
        mode = target.stat().st_mode & 0o7777
        text = profile_text(target)
        try:
            doc = tomlkit.parse(text)
        except tomlkit.exceptions.ParseError as exc:
            raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    if name not in doc:
        outer = tomlkit.table(is_super_table=True)
        doc.add(name, outer)
    outer = doc[name]
    for key in [k for k in outer if replace and k not in tables]:
        del outer[key]
    for key, values in tables.items():
        table = tomlkit.table()
        for k, v in values.items():
            if isinstance(v, list):
                arr = tomlkit.array()
                arr.extend(v)
                arr.multiline(True)
                table.add(k, arr)
            else:
                table.add(k, v)
        outer[key] = table
    _write_atomic(target, tomlkit.dumps(doc), mode, {name})
    return p


def _write_atomic(target: Path, text: str, mode: int, wrote: set[str] | None = None) -> None:
    """Write ``text`` to a temporary file beside ``target`` and rename it over ``target``, which
    must be a regular file or missing: the rename would replace a device, a FIFO or a socket
    with the profile (as root, ``/dev/full`` became a text file) and fails on a folder."""
    kind = "a folder" if target.is_dir() else file_kind(target)
    if kind is not None:
        raise ConfigError(f"cannot save the profile to {short(str(target))}: it is {kind}, not a file")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        # first and last lines (a cut copy is refused), the second names the tables sensekit wrote
        replace_file(target, seal(text, wrote), mode)
    except OSError as exc:            # a full disk: the file named, the old profile as it was
        raise _not_saved(target, exc) from None


def _not_saved(target: Path, exc: OSError) -> OSError:
    """A failed write (a full disk, a file size limit) as one line naming the profile."""
    kept = " (the previous one is kept)" if target.is_file() else ""
    return OSError(exc.errno, f"cannot save the profile {short(str(target))}: {exc.strerror or exc}{kept}")
