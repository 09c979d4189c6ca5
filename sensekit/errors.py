"""The documented exception types. Every message names the thing and the value.

- ``ConfigError`` (also a ``ValueError``): a bad setting or argument
  ("`levels` must be 2..256, got 1").
- ``SourceError``: a source cannot be opened or read (unknown spec, refused
  stream, missing library). ``DeviceUnavailableError`` is the subtype for a
  device named by the source (camera, microphone, stream, ALSA device) that is
  not there or will not open yet; ``DeviceNotFoundError``, its subtype, is a
  camera or microphone that does not exist; its message lists what is available.
- ``RecordingError``: a recording folder is missing, incomplete or corrupt.

The CLI prints these as one plain line and exits with ``exit_status(exc)``: 75
(``EXIT_TEMPFAIL``, sysexits.h's "try again later") for a ``DeviceUnavailableError``,
which waiting may fix, else 2 (``EXIT_REFUSED``); it never shows a traceback for them.
"""
from __future__ import annotations


class SensekitError(Exception):
    """Base class of every error sensekit raises on purpose."""


class ConfigError(SensekitError, ValueError):
    """A setting or argument has a bad value."""


class SourceError(SensekitError):
    """A source (camera, microphone, file, stream) cannot be opened or read."""


class DeviceUnavailableError(SourceError):
    """A device named by the source is not there or cannot be opened yet (try again later)."""


class DeviceNotFoundError(DeviceUnavailableError):
    """The requested camera or microphone does not exist."""


class RecordingError(SensekitError):
    """A recording is missing, incomplete or corrupt beyond what can be read."""


EXIT_REFUSED = 2
"""A wrong setting, argument or file: restarting will not fix it."""
EXIT_TEMPFAIL = 75
"""sysexits.h's EX_TEMPFAIL: a device not there yet; a restart a few seconds later may find it."""


def exit_status(exc: SensekitError) -> int:
    """The CLI's exit status for ``exc``: ``EXIT_TEMPFAIL`` for a device not there yet, else
    ``EXIT_REFUSED``."""
    return EXIT_TEMPFAIL if isinstance(exc, DeviceUnavailableError) else EXIT_REFUSED
