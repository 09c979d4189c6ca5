"""``sensekit apps``: list the mini-apps with a one-line description each."""
from __future__ import annotations

import argparse

from sensekit.app.registry import apps_dir, discover


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("apps", help="list the mini-apps",
                              description="List the mini-apps in the apps/ folder.")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    apps = discover()
    if not apps:
        print(f"no apps found in {apps_dir()}")
        return 1
    width = max(len(n) for n in apps)
    for info in apps.values():
        print(f"{info.name:<{width}}  {info.description}")
    print("\nrun one with: sensekit run APP  (e.g. sensekit run sound_flier)")
    return 0
