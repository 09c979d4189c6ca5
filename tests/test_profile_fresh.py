"""A library user loads a venue profile with app tables in a fresh interpreter, having imported
nothing but ``sensekit.profile``: the apps' tables are known (the table finds them through the
``sensekit.settings`` entry points the package declares), not "unknown table"."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

PROGRAM = textwrap.dedent("""
    import sys
    from sensekit.profile import load_profile
    assert "sensekit.app.registry" not in sys.modules
    p = load_profile(sys.argv[1])
    print(sorted(p.items()))
""")


def test_a_profile_with_app_tables_loads_without_importing_the_apps_first(tmp_path: Path):
    venue = tmp_path / "venue.toml"
    venue.write_text('[clapper]\nmethod = "activity"\n\n[sound_flier]\ngravity = 0.4\n\n[motion]\nthreshold = 30\n')
    done = subprocess.run([sys.executable, "-c", PROGRAM, str(venue)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0, ("a fresh `load_profile` does not know the apps' tables (if the message says "
                                  "unknown table: reinstall sensekit, `pip install -e .`, for its entry points)\n"
                                  + done.stderr[-2000:])
    assert done.stdout.strip() == ("[('clapper.method', 'activity'), ('motion.threshold', 30), "
                                   "('sound_flier.gravity', 0.4)]")


def test_an_unknown_table_still_names_the_apps_tables(tmp_path: Path):
    venue = tmp_path / "venue.toml"
    venue.write_text("[clappr]\nmethod = 1\n")
    done = subprocess.run([sys.executable, "-c", PROGRAM, str(venue)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode != 0
    assert f"{venue}:1: unknown table `clappr`; known tables: " in done.stderr
    assert "clapper" in done.stderr.splitlines()[-1] and "motion" in done.stderr.splitlines()[-1]
