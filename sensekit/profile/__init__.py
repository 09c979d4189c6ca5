"""Venue profiles: any setting of the table, kept in one TOML file per venue.

``load.py`` reads and checks a profile (errors at FILE:LINE, older key names still load);
``save.py`` writes one (a new commented file, or the user's file edited in place). The command
line's ``--profile`` lives in ``sensekit.cli.tuning``; ``sensekit calibrate`` measures noise
floors into a profile; an app's Shift+S and the browser panel's "save" write what the run
changed (``run_values``).
"""
from sensekit.profile.load import LEGACY_KEYS, Profile, find_line, load_profile, loads_profile, profile_from_dict
from sensekit.profile.save import dumps_profile, edit_profile_text, run_values, save_profile, save_taught_gestures

__all__ = ["LEGACY_KEYS", "Profile", "find_line", "load_profile", "loads_profile", "profile_from_dict",
           "dumps_profile", "edit_profile_text", "run_values", "save_profile",
           "save_taught_gestures"]
