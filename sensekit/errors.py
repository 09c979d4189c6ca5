"""The documented exception types. Every message names the thing and the value.

- ``ConfigError`` (also a ``ValueError``): a bad setting or argument
  ("`levels` must be 2..256, got 1").
- ``SourceError``: a source cannot be opened or read (unknown spec, refused
  stream, missing library). ``DeviceNotFoundError`` is the subtype for a camera
  or microphone that does not exist; its message lists what is available.
- ``RecordingError``: a recording folder is missing, incomplete or corrupt.

The CLI prints these as one plain line and exits with status 2; it never shows
a traceback for them.
"""
from __future__ import annotations


class SensekitError(Exception):
    """Base class of every error sensekit raises on purpose."""


class ConfigError(SensekitError, ValueError):
    """A setting or argument has a bad value."""


class SourceError(SensekitError):
    """A source (camera, microphone, file, stream) cannot be opened or read."""


class DeviceNotFoundError(SourceError):
    """The requested camera or microphone does not exist."""


class RecordingError(SensekitError):
    """A recording is missing, incomplete or corrupt beyond what can be read."""
