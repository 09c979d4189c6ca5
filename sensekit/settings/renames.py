"""Settings that moved: the one table of old keys -> new keys, read by every adapter.

A setting that had two homes keeps one; its old key is listed here with the new key and why.
A venue profile that still sets the old key loads it as the new one with a FILE:LINE warning
(``sensekit.profile.load``; a save renames it); ``--set``, OSC control and the panel, which
name a key the user types now, get a one-line ``ConfigError`` that says where it went
(``lookup`` in ``sensekit.settings.registry``). Adding a rename here is the whole change.

Mapping: ``tracker.blur_px`` -> ``vision.blur_px`` and ``tracker.levels`` -> ``vision.levels``,
the same value (``vision.palette_spread`` is off by default, which is the palette
``tracker.levels`` made). Cost: a dictionary read.
"""
from __future__ import annotations

__all__ = ["RENAMED", "moved"]

#: old key -> (new key, what changed)
RENAMED: dict[str, tuple[str, str]] = {
    "tracker.blur_px": ("vision.blur_px", "the colour tracker reads the picture's one blur, which also "
                                          "smooths motion and the colour bounds"),
    "tracker.levels": ("vision.levels", "the colour tracker reads the picture's one palette, which the "
                                        "colour bounds and the palette overlay also use"),
}


def moved(key: str) -> str | None:
    """The message for an old key (``None`` for any other): where it went and why."""
    if key not in RENAMED:
        return None
    new, why = RENAMED[key]
    return f"`{key}` moved to `{new}` (same value: {why})"
