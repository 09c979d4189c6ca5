"""sensekit: control programs with a camera and a microphone.

Sources (camera, microphone, media file, recording replay) feed a runner that
applies vision and audio stages and dispatches small typed events to apps.
"""
from __future__ import annotations

import os as _os

# pygame prints a banner to stdout on import; that would corrupt `--jsonl` output.
_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

__version__ = "0.1.0"

from sensekit.errors import (
    SensekitError,
    SourceError,
    DeviceNotFoundError,
    RecordingError,
    ConfigError,
)

__all__ = [
    "__version__",
    "SensekitError",
    "SourceError",
    "DeviceNotFoundError",
    "RecordingError",
    "ConfigError",
]
