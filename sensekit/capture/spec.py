"""Source specs: one string names any source.

========================  ===============================================
``camera`` / ``camera:0``   camera by index (default 0)
``camera:http://…``         a stream URL (http, https, rtsp…)
``camera:PATH``             a video file played like a camera
``mic`` / ``mic:3``         default microphone / microphone by index
``mic:NAME``                microphone whose name contains NAME
``camera:0+mic``            both at once, as one time-ordered source
``file:PATH``               a video or audio file (``MediaFileSource``)
``replay:PATH``             a recording folder (``ReplaySource``)
``PATH``                    a folder with ``meta.json`` replays; a file plays
``demo`` / ``replay:demo``  a bundled recording, when no such path exists
========================  ===============================================

``parse_source_spec`` only parses (it looks at the file system to classify a
bare path); ``open_source`` builds the source, importing the camera, microphone,
media and combined modules lazily. Cost: nothing until the source is opened.

Failure modes: an unknown kind raises ``SourceError`` naming the spec and listing
the valid kinds; a missing path raises ``SourceError`` naming it; an option no
source understands raises ``ConfigError``. Device errors come from the device
modules themselves.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

from sensekit.capture.base import Source
from sensekit.errors import ConfigError, SourceError
from sensekit.safe_read import file_kind

KINDS = ("camera", "mic", "file", "replay")
SpecKind = Literal["camera", "mic", "file", "replay", "combined"]

#: Which ``open_source`` options each kind accepts; options for other kinds are ignored.
OPTIONS: dict[str, frozenset[str]] = {
    "camera": frozenset({"width", "height", "fps"}),
    "mic": frozenset({"sample_rate", "block_size", "channels", "gain"}),
    "file": frozenset({"realtime"}),
    "replay": frozenset({"realtime", "loop", "clock", "block_size"}),
}
_ALL_OPTIONS = frozenset().union(*OPTIONS.values())


@dataclass(frozen=True)
class SourceSpec:
    """A parsed spec. ``target`` is the index, URL, path or device name (None: default)."""

    kind: SpecKind
    target: int | str | None = None
    text: str = ""
    parts: tuple[SourceSpec, ...] = ()     # (camera, mic) for "combined"

    def __str__(self) -> str:
        return self.text


def _valid_kinds() -> str:
    return ", ".join(f"'{k}:'" for k in KINDS) + ", 'camera:0+mic', or a path"


def _kind_prefix(text: str) -> str | None:
    head = text.split(":", 1)[0].strip().lower()
    return head if head in KINDS else None


def _parse_simple(text: str, original: str) -> SourceSpec:
    kind, _, rest = text.partition(":")
    kind = kind.strip().lower()
    rest = rest.strip()
    if kind == "camera":
        if rest == "":
            return SourceSpec("camera", 0, original)
        if rest.isdigit():
            return SourceSpec("camera", int(rest), original)
        return SourceSpec("camera", rest, original)
    if kind == "mic":
        if rest == "":
            return SourceSpec("mic", None, original)
        return SourceSpec("mic", int(rest) if rest.isdigit() else rest, original)
    if not rest:
        raise SourceError(f"source spec {original!r} needs a path after '{kind}:'")
    return SourceSpec(kind, rest, original)  # type: ignore[arg-type]


def parse_source_spec(spec: str | os.PathLike[str]) -> SourceSpec:
    """Parse a spec string (see the module docstring); ``SourceError`` if it names nothing."""
    if isinstance(spec, os.PathLike):
        spec = os.fspath(spec)
    if not isinstance(spec, str):
        raise SourceError(f"source spec must be a string, got {spec!r}")
    text = spec.strip()
    if not text:
        raise SourceError(f"empty source spec; use one of {_valid_kinds()}")

    combined = _parse_combined(text, spec)
    if combined is not None:
        return combined
    if _kind_prefix(text) is not None:
        return _parse_simple(text, spec)
    return _parse_bare(text, spec)


def _parse_combined(text: str, spec: str) -> SourceSpec | None:
    """camera+mic (either order); '+' may also occur inside URLs and paths."""
    for i, ch in enumerate(text):
        if ch != "+":
            continue
        left, right = text[:i], text[i + 1:]
        kinds = (_kind_prefix(left), _kind_prefix(right))
        if kinds in (("camera", "mic"), ("mic", "camera")):
            cam, mic = (left, right) if kinds[0] == "camera" else (right, left)
            return SourceSpec("combined", None, spec,
                              (_parse_simple(cam, cam), _parse_simple(mic, mic)))
    return None


def _parse_bare(text: str, spec: str) -> SourceSpec:
    """A bare path (or a bare bundled-recording name)."""
    path = Path(text).expanduser()
    if path.is_dir():
        return SourceSpec("replay", str(path), spec)
    if path.is_file():
        return SourceSpec("file", str(path), spec)
    kind = file_kind(path)
    if kind is not None:
        raise SourceError(f"'{text}' is {kind}, not a media file or a recording")
    prefix, sep, _ = text.partition(":")
    if "://" in text:
        raise SourceError(f"unknown source spec {spec!r}: for a stream use 'camera:{text}'; "
                          f"valid kinds are {_valid_kinds()}")
    if sep and len(prefix) > 1 and "/" not in prefix and "\\" not in prefix:
        raise SourceError(f"unknown source kind {prefix!r} in spec {spec!r}; "
                          f"valid kinds are {_valid_kinds()}")
    from sensekit.paths import list_bundled, recordings_dir
    bundled = list_bundled()
    if "/" not in text and "\\" not in text and not path.suffix and text in bundled:
        return SourceSpec("replay", str(recordings_dir() / f"{text}.skrec"), spec)
    raise SourceError(f"no such file or recording: {text!r}{_closest(text, bundled)} (source specs: "
                      f"{_valid_kinds()}" + (f"; bundled recordings: {', '.join(bundled)}" if bundled else "") + ")")


def _closest(text: str, bundled: list[str]) -> str:
    """'; did you mean 'demo'?' for a misspelt bundled recording's name, else ''."""
    from sensekit.suggest import close_matches, did_you_mean

    hint = did_you_mean(close_matches(text.removesuffix(".skrec"), bundled))
    return f"; {hint}" if hint else ""


def _replay_path(path: Path, parsed: SourceSpec) -> Path:
    """The folder ``replay:TARGET`` names: the path, else (``replay:demo``, as a bare ``demo``)
    the bundled recording of that name; ``SourceError`` naming the closest bundled one."""
    if path.exists():
        return path
    from sensekit.paths import list_bundled, recordings_dir
    bundled, name = list_bundled(), str(parsed.target)
    if name in bundled:
        return recordings_dir() / f"{name}.skrec"
    raise SourceError(f"no such recording: '{path}'{_closest(name, bundled)} (from spec {parsed.text!r}"
                      + (f"; bundled recordings: {', '.join(bundled)}" if bundled else "") + ")")


def not_a_media_file(path: Path, spec: str) -> str:
    """The message for a folder given where a media file was expected."""
    if (path / "meta.json").is_file():
        return (f"'{path}' is a recording, not a media file: use 'replay:{path}' "
                f"(from spec {spec!r})")
    return f"'{path}' is a folder, not a media file (from spec {spec!r})"


def _import(module: str, name: str, what: str) -> Callable[..., Source]:
    try:
        mod = __import__(f"sensekit.capture.{module}", fromlist=[name])
    except ImportError as exc:
        raise SourceError(f"{what} support is not available ({exc})") from None
    cls: Callable[..., Source] = getattr(mod, name)
    return cls


def open_source(spec: str | os.PathLike[str] | SourceSpec, **options: Any) -> Source:
    """Build the source a spec names (not yet opened).

    Options: ``width``, ``height``, ``fps`` (camera); ``sample_rate``,
    ``block_size``, ``channels``, ``gain`` (mic); ``realtime`` (file, replay);
    ``loop``, ``clock`` (replay). ``None`` values are ignored, and options for
    other kinds are ignored (so one set can serve any spec).
    """
    parsed = spec if isinstance(spec, SourceSpec) else parse_source_spec(spec)
    options = {k: v for k, v in options.items() if v is not None}
    unknown = sorted(set(options) - _ALL_OPTIONS)
    if unknown:
        raise ConfigError(f"unknown source option(s) {unknown}; known: {sorted(_ALL_OPTIONS)}")
    if parsed.kind == "combined":
        cam, mic = parsed.parts
        video, audio = open_source(cam, **options), open_source(mic, **options)
        CombinedSource = _import("combined", "CombinedSource", "combined camera+microphone")
        return CombinedSource(video, audio)
    mine = {k: v for k, v in options.items() if k in OPTIONS[parsed.kind]}
    if parsed.kind == "camera":
        CameraSource = _import("camera", "CameraSource", "camera")
        return CameraSource(parsed.target, **mine)
    if parsed.kind == "mic":
        MicrophoneSource = _import("microphone", "MicrophoneSource", "microphone")
        return MicrophoneSource(parsed.target, **mine)
    path = Path(str(parsed.target)).expanduser()
    if parsed.kind == "replay":
        from sensekit.capture.recording import ReplaySource
        return ReplaySource(_replay_path(path, parsed), **mine)
    if path.is_dir():
        raise SourceError(not_a_media_file(path, parsed.text))
    if not path.is_file():
        kind = file_kind(path)
        if kind is not None:
            raise SourceError(f"'{path}' is {kind}, not a media file (from spec {parsed.text!r})")
        raise SourceError(f"no such media file: '{path}' (from spec {parsed.text!r})")
    MediaFileSource = _import("media", "MediaFileSource", "media file")
    return MediaFileSource(path, **mine)
