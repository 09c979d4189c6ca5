"""Choosing the source an app runs on, and checking it has what the app needs.

- ``open_for_app(app_cls, spec)``: with a spec, open it (``sensekit.capture.spec``)
  and check it; without one, use the live camera and/or microphone the app needs
  when they exist, otherwise the app's bundled recording, returned with ONE
  line saying so (the CLI prints it).
- ``check_inputs(app_cls, source)``: ``ConfigError`` naming what is missing,
  e.g. "clapper needs audio, but 'file:clip.mp4' has video only".

Replays are opened with ``realtime=False``: the app host paces them itself
(windowed) or runs them flat out (headless), always stepping by source time.
"""
from __future__ import annotations

from sensekit.app.base import App
from sensekit.capture.base import Source
from sensekit.errors import ConfigError, SensekitError


def _has(source: Source) -> list[str]:
    return [k for k, v in (("video", source.has_video), ("audio", source.has_audio)) if v]


def check_inputs(app_cls: type[App], source: Source, label: str | None = None) -> None:
    """Raise ``ConfigError`` if ``source`` lacks an input ``app_cls.needs``."""
    missing = sorted(n for n in app_cls.needs if n not in _has(source))
    if not missing:
        return
    has = _has(source)
    what = f"{' and '.join(has)} only" if has else "neither video nor audio"
    name = app_cls.name or app_cls.title
    raise ConfigError(f"{name} needs {' and '.join(missing)}, but {label or source.description!r} "
                      f"has {what}")


def open_spec(app_cls: type[App], spec: str, *, loop: bool = False) -> Source:
    """Open ``spec`` for ``app_cls`` and check its inputs (closes it again on failure);
    ``loop`` repeats a recording."""
    from sensekit.capture.spec import open_source

    source = open_source(spec, loop=loop or None)
    try:
        source.open()
        check_inputs(app_cls, source, spec)
    except BaseException:
        source.close()
        raise
    return source


def live_spec(app_cls: type[App]) -> str | None:
    """The device spec for the live inputs ``app_cls`` needs, or ``None`` if one is missing."""
    try:
        from sensekit.capture import devices
    except ImportError:
        return None
    try:
        cameras = devices.list_cameras() if "video" in app_cls.needs else [None]
        mics: list[devices.MicrophoneInfo | None] = (
            [*devices.list_microphones()] if "audio" in app_cls.needs else [None])
        mics = sorted(mics, key=lambda m: not getattr(m, "is_default", False))
    except (SensekitError, OSError):
        return None
    if not cameras or not mics:
        return None
    parts = []
    if "video" in app_cls.needs:
        parts.append(f"camera:{_device_id(cameras[0])}")
    if "audio" in app_cls.needs:
        parts.append(f"mic:{_device_id(mics[0])}")
    return "+".join(parts)


def _device_id(device: object) -> str:
    for attr in ("index", "id"):
        if hasattr(device, attr):
            return str(getattr(device, attr))
    if isinstance(device, dict):
        return str(device.get("index", device.get("id", 0)))
    return str(device)


def bundled_source(app_cls: type[App], *, loop: bool = False) -> Source:
    """The app's bundled recording (looped for windowed runs: an exhibition never ends)."""
    from sensekit.capture.recording import ReplaySource
    from sensekit.paths import bundled_recording

    return ReplaySource(bundled_recording(app_cls.recording), realtime=False, loop=loop)


def open_for_app(app_cls: type[App], spec: str | None, *,
                 loop: bool = False, headless: bool = False) -> tuple[Source, str | None]:
    """The source to run ``app_cls`` on and, when the bundled recording is used, a note
    (``headless``: no window, so no esc to end a loop with)."""
    if spec:
        return open_spec(app_cls, spec, loop=loop), None
    live = live_spec(app_cls)
    if live is not None:
        try:
            return open_spec(app_cls, live), None
        except SensekitError:
            pass
    source = bundled_source(app_cls, loop=loop)
    source.open()
    word = {"video": "camera", "audio": "microphone"}
    devs = " or ".join(word[n] for n in sorted(app_cls.needs))
    # a window repeats the recording (an exhibition never ends): said, or a user waits for an end
    # (headless, --loop: no window takes esc, so only Ctrl-C is named)
    again = ("over and over until Ctrl-C; " if headless else "over and over until esc or Ctrl-C; ") if loop else ""
    note = (f"no {devs} found; playing the bundled recording "
            f"'{app_cls.recording}' ({again}use --source to choose)")
    return source, note
