"""How this sensekit was installed, and the pip command that adds an optional extra to it.

A source checkout (an editable install, ``pip install -e``, or the checkout on ``sys.path``)
adds an extra with ``pip install -e '.[EXTRA]'``, run in the checkout. A wheel, installed from
the file or from a git URL, adds it with ``pip install 'sensekit[EXTRA]'``: pip finds sensekit
already installed and fetches only the extra's packages. (No package index holds sensekit, so
that form needs the installed copy; the checkout form would ask a wheel user for a folder they
do not have.)

- ``install_hint(extra)``: the command for this installation; every message naming an extra says it.
- ``install_command(extra, checkout=...)``: the decision alone.
- ``from_checkout()``: the detection (``is_checkout(folder)``): the imported ``sensekit/`` folder sits beside the
  ``pyproject.toml`` of the sensekit project (symlinks resolved, so a strict editable install's
  tree of links counts as the checkout it links to).
"""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from sensekit.paths import PACKAGE_DIR

__all__ = ["install_hint", "install_command", "from_checkout", "is_checkout"]

_PROJECT_NAME = re.compile(r'^name\s*=\s*["\']sensekit["\']\s*$', re.M)


def install_command(extra: str, *, checkout: bool) -> str:
    """``pip install -e '.[extra]'`` for a checkout, else ``pip install 'sensekit[extra]'``."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]*(,[a-z][a-z0-9_-]*)*", extra):
        raise ValueError(f"extra must be names like 'voice' or 'hands,test', got {extra!r}")
    return f"pip install -e '.[{extra}]'" if checkout else f"pip install 'sensekit[{extra}]'"


def is_checkout(package_dir: Path) -> bool:
    """True when ``package_dir`` is the ``sensekit/`` folder of a source checkout: its parent holds
    a ``pyproject.toml`` naming the project sensekit. An installed wheel's parent is
    ``site-packages``, which holds none."""
    try:
        text = (package_dir.parent / "pyproject.toml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return _PROJECT_NAME.search(text) is not None


@cache
def from_checkout() -> bool:
    """Whether the imported sensekit is a checkout's (read once)."""
    return is_checkout(PACKAGE_DIR)


def install_hint(extra: str) -> str:
    """The pip command that adds ``extra`` to this installation of sensekit."""
    return install_command(extra, checkout=from_checkout())
