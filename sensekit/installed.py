"""How this sensekit was installed, and the pip command that adds an optional extra to it.

A source checkout (an editable install, ``pip install -e``, or the checkout on ``sys.path``)
adds an extra with ``python -m pip install -e '.[EXTRA]'``, run in the checkout. A wheel, installed
from the file or from a git URL, adds it with ``python -m pip install 'sensekit[EXTRA]'``: pip finds
sensekit already installed and fetches only the extra's packages. (No package index holds
sensekit, so that form needs the installed copy; the checkout form would ask a wheel user for a
folder they do not have.)

**Which Python.** The hint runs pip through the interpreter sensekit is running in (``python -m
pip``), never a bare ``pip``: the ``pip`` first on a user's ``PATH`` may be another Python's (the
system's, beside a venv not activated), which installs the extra where this sensekit never sees
it. The interpreter is named (``python_command``) by the shortest name that runs it from the
``PATH``: ``python``, else ``python3``, when that name found on the ``PATH`` is this interpreter
(the same file in the same folder: a venv's ``python`` links to the system's, but is another
environment); else its full path (``sys.executable``, quoted for a shell); ``python3`` when
Python does not know its own path.

- ``install_hint(extra)``: the command for this installation; every message naming an extra says
  it, and the modules of the extras name it in their docstrings in the checkout's form
  (``tests/test_installed.py`` holds every such mention to ``install_command``'s text).
- ``install_command(extra, checkout=..., python=...)``: the decision alone.
- ``python_command()``: the interpreter's name in the hint.
- ``from_checkout()``: the detection (``is_checkout(folder)``): the imported ``sensekit/`` folder sits beside the
  ``pyproject.toml`` of the sensekit project (symlinks resolved, so a strict editable install's
  tree of links counts as the checkout it links to).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from functools import cache
from pathlib import Path

from sensekit.paths import PACKAGE_DIR

__all__ = ["install_hint", "install_command", "python_command", "from_checkout", "is_checkout"]

_PROJECT_NAME = re.compile(r'^name\s*=\s*["\']sensekit["\']\s*$', re.M)


def install_command(extra: str, *, checkout: bool, python: str = "python") -> str:
    """``PYTHON -m pip install -e '.[extra]'`` for a checkout, else ``PYTHON -m pip install
    'sensekit[extra]'``."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]*(,[a-z][a-z0-9_-]*)*", extra):
        raise ValueError(f"extra must be names like 'voice' or 'hands,test', got {extra!r}")
    pip = f"{python} -m pip install"
    return f"{pip} -e '.[{extra}]'" if checkout else f"{pip} 'sensekit[{extra}]'"


def _runs_this(found: str | None, executable: str) -> bool:
    """``found`` (a ``PATH`` lookup) is ``executable``: the same file in the same folder (a
    venv's ``python`` is a link to the system's, so the file alone does not tell them apart)."""
    if not found:
        return False
    a, b = os.path.abspath(found), os.path.abspath(executable)
    try:
        return os.path.dirname(a) == os.path.dirname(b) and os.path.samefile(a, b)
    except OSError:
        return False


def python_command(executable: str | None = None, path: str | None = None) -> str:
    """The name that runs this interpreter (``executable``, default ``sys.executable``) from a
    shell whose ``PATH`` is ``path`` (default this process's): ``python``, else ``python3``, when
    the ``PATH`` finds this one by it; else its full path, quoted; ``python3`` when unknown."""
    executable = sys.executable if executable is None else executable
    if not executable:
        return "python3"
    for name in ("python", "python3"):
        if _runs_this(shutil.which(name, path=path), executable):
            return name
    return shlex.quote(executable)


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
    """The pip command that adds ``extra`` to this installation of sensekit, run by this Python."""
    return install_command(extra, checkout=from_checkout(), python=python_command())
