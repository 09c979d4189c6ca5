"""Shared validators. Each raises ``ConfigError`` quoting the name and the bad value."""
from __future__ import annotations

import errno
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sensekit.errors import ConfigError
from sensekit.safe_read import file_kind


def check_range(name: str, value: float, lo: float, hi: float) -> float:
    """Return ``value`` if ``lo <= value <= hi`` (and finite), else raise."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"`{name}` must be a number in {lo:g}..{hi:g}, got {value!r}") from None
    if not math.isfinite(v) or v < lo or v > hi:
        raise ConfigError(f"`{name}` must be {lo:g}..{hi:g}, got {value!r}")
    return v


def check_int_range(name: str, value: Any, lo: int, hi: int) -> int:
    """``value`` as an int within ``lo..hi``; else a ``ConfigError`` naming ``name`` and the value."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ConfigError(f"`{name}` must be an integer {lo}..{hi}, got {value!r}")
    if not lo <= int(value) <= hi:
        raise ConfigError(f"`{name}` must be {lo}..{hi}, got {value!r}")
    return int(value)


def check_positive(name: str, value: Any, *, allow_zero: bool = False) -> float:
    """``value`` as a finite float > 0 (>= 0 with ``allow_zero``); else a ``ConfigError`` naming
    ``name`` and the value."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"`{name}` must be a positive number, got {value!r}") from None
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        word = "non-negative" if allow_zero else "positive"
        raise ConfigError(f"`{name}` must be {word}, got {value!r}")
    return v


def check_frame(frame: Any, name: str = "frame") -> np.ndarray:
    """A BGR frame must be an HxWx3 uint8 array with at least one pixel."""
    if not isinstance(frame, np.ndarray):
        raise ConfigError(f"`{name}` must be an HxWx3 uint8 numpy array, got {type(frame).__name__}")
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ConfigError(
            f"`{name}` must be an HxWx3 uint8 array, got shape {frame.shape} dtype {frame.dtype}"
        )
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ConfigError(f"`{name}` has no pixels (shape {frame.shape})")
    return frame


# --- output paths -------------------------------------------------------------------------

def _suffix_list(suffixes: tuple[str, ...]) -> str:
    return suffixes[0] if len(suffixes) == 1 else ", ".join(suffixes[:-1]) + " or " + suffixes[-1]


def _inside_recording(path: Path) -> Path | None:
    """The recording folder (``*.skrec`` with a ``meta.json``) that ``path`` lies in, if any."""
    for folder in path.parents:
        if folder.name.endswith(".skrec") and (folder / "meta.json").is_file():
            return folder
    return None


def _probe_file(path: Path) -> None:
    """Open ``path`` for writing without changing it (created and removed if it did not exist).
    A FIFO or a device is not opened, only its permission checked: a writer that opens a FIFO and
    closes it hands its reader the end of the file (``cat`` or a consumer reading to the end then
    goes, and the command's real open found no reader)."""
    if path.exists() and not path.is_file():
        if not os.access(path, os.W_OK):
            raise PermissionError(errno.EACCES, "permission denied")
    elif path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)   # no truncation, no write
        os.close(fd)
    else:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.close(fd)
        os.unlink(path)
    if not os.access(path.parent, os.W_OK | os.X_OK):   # atomic writers replace via the folder
        raise PermissionError(errno.EACCES, "the folder is not writable")


def _probe_folder(path: Path) -> None:
    os.mkdir(path)
    os.rmdir(path)


def _check_path_text(text: str, label: str, suffixes: tuple[str, ...]) -> None:
    """Not empty, no NUL."""
    if not text.strip():
        raise ConfigError(f"{label}an empty path; give a "
                          + (f"name ending in {_suffix_list(suffixes)}" if suffixes else "path"))
    if "\x00" in text:
        raise ConfigError(f"{label}{text!r} contains a NUL character")


def check_output_path(name: str | None, path: str | os.PathLike[str], *,
                      suffixes: tuple[str, ...] = (), folder: bool = False,
                      exist_ok: bool = True, replaced: bool = False) -> Path:
    """Return ``path`` as a ``Path`` if a command can write it, else raise ``ConfigError``.

    Checked, without changing anything on disk: the name ends in one of ``suffixes``
    (case-insensitive; none = any), the parent folder exists, the path is not an
    existing folder (for a file) or does not exist at all (a ``folder`` output, or
    ``exist_ok=False``), it does not lie inside a recording folder (recordings are
    never changed), and the OS lets us create it (a file is created and removed
    again, an existing file is opened for appending and closed). ``replaced``: the
    command writes a new file and renames it over the path (a screenshot, a profile),
    so what the path names now (through a symlink: its target) must be a regular file
    or nothing - a FIFO, a device or a socket would be replaced by the file. ``name`` (e.g.
    ``"--out"``) prefixes the message; the CLI's argparse types pass ``None``
    because argparse names the option itself.
    """
    label = f"`{name}`: " if name else ""
    text = os.fspath(path)
    shown = repr(text)
    _check_path_text(str(text), label, suffixes)
    p = Path(text)
    try:
        is_dir = p.is_dir()
        exists = p.exists() or p.is_symlink()
    except OSError as exc:
        raise ConfigError(f"{label}cannot write {shown}: {exc.strerror or exc}") from None
    if is_dir and not folder:
        raise ConfigError(f"{label}{shown} is a folder; give a file name"
                          + (f" ending in {_suffix_list(suffixes)}" if suffixes else ""))
    if suffixes and p.suffix.lower() not in suffixes:
        raise ConfigError(f"{label}{shown} must end in {_suffix_list(suffixes)}")
    if exists and (folder or not exist_ok):
        raise ConfigError(f"{label}{shown} already exists; choose another name or delete it")
    kind = file_kind(p) if replaced else None
    if kind is not None:
        raise ConfigError(f"{label}{shown} is {kind}, not a file: the file written would replace it; "
                          "give the name of a file")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        why = "is not a folder" if parent.exists() else "does not exist"
        raise ConfigError(f"{label}cannot write {shown}: the folder '{parent}' {why}")
    rec = _inside_recording(p.absolute())
    if rec is not None:
        raise ConfigError(f"{label}{shown} is inside the recording '{rec}'; write it elsewhere "
                          "(sensekit never changes a recording)")
    try:
        (_probe_folder if folder else _probe_file)(p)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if exc.errno == errno.ENOENT:          # e.g. /proc: the folder exists, files cannot be made
            reason = f"'{parent}' does not accept new files"
        raise ConfigError(f"{label}cannot write {shown}: {reason}") from None
    return p


# --- arrays of points, vectors and sizes (collide and steer) -------------------------------------
# Every array that crosses their public boundary goes through one of these, so a NaN or a wrong
# shape is rejected with a ConfigError naming the argument and quoting the bad value (or its row),
# instead of spreading through a simulation. Cost: one np.isfinite(...).all() pass (about 0.1 ms
# per 100,000 points).

def _first_bad(name: str, arr: np.ndarray, what: str) -> ConfigError:
    bad = ~np.isfinite(arr)
    if arr.ndim > 1:
        row = int(np.flatnonzero(bad.any(axis=tuple(range(1, arr.ndim))))[0])
        return ConfigError(f"`{name}` must be {what}; row {row} is {arr[row].tolist()!r}")
    idx = int(np.flatnonzero(bad)[0])
    return ConfigError(f"`{name}` must be {what}; item {idx} is {float(arr[idx])!r}")


def as_rows(name: str, value: Any, width: int, n: int | None = None, *,
            layout: str = "") -> NDArray[np.float64]:
    """``value`` as a C-contiguous float64 ``(N, width)`` array of finite numbers (``layout``,
    e.g. ``" as (x0, y0, x1, y1)"``, is added to the shape error)."""
    try:
        arr = np.ascontiguousarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"`{name}` must be an (N, {width}) array of numbers, got {value!r}") from None
    if arr.ndim != 2 or arr.shape[1] != width:
        raise ConfigError(f"`{name}` must have shape (N, {width}){layout}, got {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ConfigError(f"`{name}` must have {n} rows, got {arr.shape[0]}")
    if not np.isfinite(arr).all():
        raise _first_bad(name, arr, "finite")
    return arr


def as_points(name: str, value: Any, n: int | None = None) -> NDArray[np.float64]:
    """``value`` as a C-contiguous float64 ``(N, 2)`` array of finite points."""
    return as_rows(name, value, 2, n)


def as_vec(name: str, value: Any) -> NDArray[np.float64]:
    """``value`` as a finite float64 vector of shape ``(2,)``."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"`{name}` must be an (x, y) pair of numbers, got {value!r}") from None
    if arr.shape != (2,):
        raise ConfigError(f"`{name}` must be an (x, y) pair, got shape {arr.shape} ({value!r})")
    if not (np.isfinite(arr[0]) and np.isfinite(arr[1])):
        raise ConfigError(f"`{name}` must be finite, got {arr.tolist()!r}")
    return arr.copy()


def as_sizes(name: str, value: Any, n: int, *, allow_zero: bool = False) -> NDArray[np.float64]:
    """A scalar or length-``n`` array of finite positive numbers as float64 ``(n,)``."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"`{name}` must be numbers, got {value!r}") from None
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,):
        raise ConfigError(f"`{name}` must be a number or have shape ({n},), got shape {arr.shape}")
    arr = np.ascontiguousarray(arr)
    if not np.isfinite(arr).all():
        raise _first_bad(name, arr, "finite")
    bad = arr < 0 if allow_zero else arr <= 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        word = "non-negative" if allow_zero else "positive"
        raise ConfigError(f"`{name}` must be {word}; item {i} is {float(arr[i])!r}")
    return arr
