"""``sensekit apps``: list the mini-apps with a one-line description each, and where they come from."""
from __future__ import annotations

import argparse
import os

from sensekit.app.registry import APPS_DIR_ENV, ENTRY_POINT_GROUP, apps_dir, discover
from sensekit.cli import Subparsers
from sensekit.paths import doc

WHERE = f"""\
where apps come from (a later one with the same name wins):
  bundled             the apps that ship with sensekit
  entry points        installed packages that declare apps in the {ENTRY_POINT_GROUP!r} group,
                      in their pyproject.toml:
                        [project.entry-points."{ENTRY_POINT_GROUP}"]
                        my_app = "my_package.my_app:MyApp"
  {APPS_DIR_ENV:<19} folders of app files (one App subclass per .py file), separated by '{os.pathsep}'
                      e.g.  export {APPS_DIR_ENV}=~/sensekit-apps

run a file without registering it:  sensekit run path/to/my_app.py
write one: subclass sensekit.app.App ({{tutorial}} walks through one)
"""


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser("apps", help="list the mini-apps",
                              description="List the mini-apps: the bundled ones, installed ones and yours.",
                              epilog=WHERE.format(tutorial=doc("tutorial.md")),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    apps = discover()
    if not apps:
        print(f"no apps found in {apps_dir()}")
        return 1
    width = max(len(n) for n in apps)
    for info in apps.values():
        where = "" if info.origin == "bundled" else f"  [{info.origin}: {info.path or info.entry_point}]"
        print(f"{info.name:<{width}}  {info.description}{where}")
    print("\nrun one with: sensekit run APP  (e.g. sensekit run sound_flier), or sensekit run path/to/app.py")
    return 0
