"""Find cameras and microphones; the one place device errors are worded.

- ``list_cameras(max_index=4)`` probes ``cv2.VideoCapture(i)`` for ``i`` in
  ``0..max_index`` with OpenCV's logging silenced (it otherwise prints a warning
  per missing ``/dev/videoN``). Cost: opening a real camera takes 50-500 ms, so
  the probe is only run by ``sensekit devices`` and when building an error.
- ``list_microphones()`` lists PortAudio input devices (cheap: no stream opened).
- ``find_microphone(spec)`` picks one by index, by case-insensitive name
  substring, or the system default when ``spec`` is ``None``/``""``/``"default"``.
- ``import_sounddevice()`` imports ``sounddevice`` and turns a missing PortAudio
  library into a ``SourceError`` that says which package to install; then it routes ALSA's
  own messages into ``logging`` (``alsa_log``), so the log's rate limit caps them.

Failure modes, each a ``SourceError`` (``DeviceNotFoundError`` for a device that
does not exist) whose message says what was tried and what is available, e.g.
"no microphone matching 'usb'; available: [0] default, [2] HDMI".
"""
from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Iterator

from sensekit.capture.alsa_log import route_alsa_messages
from sensekit.errors import DeviceNotFoundError, SourceError

PORTAUDIO_MISSING = (
    "PortAudio not found: install it with `apt-get install libportaudio2` (Debian/Ubuntu) "
    "or `brew install portaudio` (macOS)"
)
SOUNDDEVICE_MISSING = (
    "the Python package 'sounddevice' cannot be imported ({detail}): install it with "
    "`{python} -m pip install sounddevice`; it also needs PortAudio (`apt-get install libportaudio2` "
    "on Debian/Ubuntu, `brew install portaudio` on macOS)"
)


@dataclass(frozen=True)
class CameraInfo:
    index: int
    width: int
    height: int
    backend: str

    def __str__(self) -> str:
        return f"[{self.index}] {self.width}x{self.height} ({self.backend})"


@dataclass(frozen=True)
class MicrophoneInfo:
    index: int
    name: str
    channels: int                 # max input channels
    default_samplerate: float
    hostapi: str
    is_default: bool = False

    def __str__(self) -> str:
        return f"[{self.index}] {self.name}"


# --- OpenCV ------------------------------------------------------------------

class _OpenCvSilence:
    """OpenCV's log level is one for the whole process (its Python binding sets no level per
    thread or per call), so quiet blocks on several threads share one silence: the first to
    enter saves the level and silences, the last to leave restores it. Saved and restored per
    block, two blocks that overlapped on two threads (a video written while a camera opens)
    left OpenCV silent for the rest of the run: the second saved the first's silence as the
    level to go back to."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._saved: int | None = None

    def enter(self, get: Callable[[], int], set_: Callable[[int], None], silent: int) -> None:
        with self._lock:
            if self._depth == 0:
                self._saved = get()
                set_(silent)
            self._depth += 1

    def leave(self, set_: Callable[[int], None]) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._saved is not None:
                set_(self._saved)
                self._saved = None


_SILENCE = _OpenCvSilence()


@contextlib.contextmanager
def quiet_opencv() -> Iterator[None]:
    """Silence OpenCV's own log lines (missing /dev/videoN, refused streams) for a block.
    OpenCV has one log level per process: while any thread is inside a quiet block, OpenCV's
    lines from every thread are dropped, so keep the block around the one call that floods; the
    level goes back to what it was when the last open block ends."""
    import cv2

    log = getattr(getattr(cv2, "utils", None), "logging", None)
    if log is None and hasattr(cv2, "setLogLevel"):  # 4.x wheels (the hands extra's): the old API
        get, set_, silent = cv2.getLogLevel, cv2.setLogLevel, 0  # type: ignore[attr-defined]  # 4.x only
    elif log is not None:
        get, set_, silent = log.getLogLevel, log.setLogLevel, log.LOG_LEVEL_SILENT
    else:  # very old builds: nothing to silence with
        yield
        return
    _SILENCE.enter(get, set_, silent)
    try:
        yield
    finally:
        _SILENCE.leave(set_)


def _quiet_ffmpeg_env() -> None:
    # FFmpeg's own messages ("Connection refused") are governed by this variable,
    # read when a capture is opened; respect a value the user already set.
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")


def list_cameras(max_index: int = 4) -> list[CameraInfo]:
    """Cameras that open at indices ``0..max_index`` (inclusive), probed quietly."""
    import cv2

    found: list[CameraInfo] = []
    with quiet_opencv():
        for index in range(max_index + 1):
            cap = cv2.VideoCapture(index)
            try:
                if not cap.isOpened():
                    continue
                w = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH))
                h = int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
                try:
                    backend = cap.getBackendName()
                except cv2.error:
                    backend = "?"
                found.append(CameraInfo(index, w, h, backend))
            finally:
                cap.release()
    return found


def camera_not_found(index: int, max_index: int = 4) -> DeviceNotFoundError:
    """The error for a camera index that does not open, listing what does."""
    cams = list_cameras(max_index)
    available = ", ".join(str(c) for c in cams) if cams else f"none (probed indices 0..{max_index})"
    tried = f"/dev/video{index}" if os.name == "posix" and os.path.isdir("/dev") else f"index {index}"
    return DeviceNotFoundError(f"no camera at index {index} (tried {tried}); available: {available}")


# --- PortAudio -----------------------------------------------------------------

def import_sounddevice() -> ModuleType:
    """``import sounddevice``, or a ``SourceError`` naming what to install. ALSA's own messages
    go to ``logging`` from here on (``alsa_log``: rate-limited, not straight to stderr); those of
    PortAudio's start, as it lists the devices, sounddevice sends to ``/dev/null`` itself."""
    try:
        import sounddevice
    except OSError:
        raise SourceError(PORTAUDIO_MISSING) from None
    except ImportError as exc:
        from sensekit.installed import python_command

        raise SourceError(SOUNDDEVICE_MISSING.format(detail=exc, python=python_command())) from None
    route_alsa_messages()
    module: ModuleType = sounddevice              # untyped: no stubs
    return module


def list_microphones() -> list[MicrophoneInfo]:
    """PortAudio's input devices (those with at least one input channel)."""
    sd = import_sounddevice()
    try:
        devices = sd.query_devices()
        hostapis = sd.query_hostapis()
    except sd.PortAudioError as exc:
        raise SourceError(f"PortAudio cannot list audio devices: {exc}") from None
    default_in = _default_input_index(sd)
    mics = []
    for dev in devices:
        if dev["max_input_channels"] < 1:
            continue
        api = hostapis[dev["hostapi"]]["name"] if 0 <= dev["hostapi"] < len(hostapis) else "?"
        mics.append(MicrophoneInfo(index=int(dev["index"]), name=str(dev["name"]),
                                   channels=int(dev["max_input_channels"]),
                                   default_samplerate=float(dev["default_samplerate"]),
                                   hostapi=api, is_default=int(dev["index"]) == default_in))
    return mics


def _default_input_index(sd: Any) -> int:
    """Index of the default input device, or -1 when PortAudio has none."""
    try:
        return int(sd.query_devices(kind="input")["index"])
    except Exception:  # noqa: BLE001 - PortAudioError, or no default device at all
        return -1


def _listing(mics: list[MicrophoneInfo]) -> str:
    return ", ".join(str(m) for m in mics) if mics else "none"


def _default_microphone(mics: list[MicrophoneInfo], *, named: bool) -> MicrophoneInfo:
    """The system default input; else (asked for "default") the device called so; else the first."""
    for m in mics:
        if m.is_default:
            return m
    if named:
        for m in mics:
            if m.name.lower() == "default":
                return m
    return mics[0]


def find_microphone(spec: int | str | None = None) -> MicrophoneInfo:
    """The input device named by ``spec``.

    ``None``, ``""`` or ``"default"``: the system default input (else the first one).
    An int or a string of digits: that PortAudio device index.
    Any other string: the input device whose name is it, else the one whose name contains it
    (case-insensitive); a part of several names is ``DeviceNotFoundError`` naming them.
    """
    mics = list_microphones()
    if not mics:
        wanted = "" if spec is None or spec == "" else f" matching {spec!r}"
        raise DeviceNotFoundError(
            f"no microphone{wanted}; available: none (PortAudio lists no input devices: "
            "is a sound card or USB microphone connected, and is ALSA/PulseAudio set up?)")
    if spec is None or (isinstance(spec, str) and spec.strip().lower() in ("", "default")):
        return _default_microphone(mics, named=spec is not None and spec.strip().lower() == "default")
    if isinstance(spec, bool):
        raise DeviceNotFoundError(f"no microphone {spec!r}; available: {_listing(mics)}")
    if isinstance(spec, int) or spec.strip().isdigit():
        index = int(spec)
        found = next((m for m in mics if m.index == index), None)
        if found is None:
            raise DeviceNotFoundError(f"no microphone at index {index}; available: {_listing(mics)}")
        return found
    needle = str(spec).strip().lower()
    exact = [m for m in mics if m.name.lower() == needle]
    if exact:
        return exact[0]
    matches = [m for m in mics if needle in m.name.lower()]
    if len(matches) == 1:
        return matches[0]
    if matches:      # the first of several could be another device after a reboot or a re-plug
        raise DeviceNotFoundError(
            f"microphone name {spec!r} matches {len(matches)} devices: {_listing(matches)}; pass the "
            f"index (mic:{matches[0].index}) or more of the name, as `sensekit devices` lists it")
    raise DeviceNotFoundError(f"no microphone matching {spec!r}; available: {_listing(mics)}")
