"""The install line a message gives for an optional extra (sensekit.installed).

A checkout adds an extra with ``python -m pip install -e '.[X]'``; a wheel (from the file or a git
URL) with ``python -m pip install 'sensekit[X]'`` (harden27: ``python -m pip``, the interpreter
sensekit runs in, not the ``pip`` first on the ``PATH``, which may be another Python's).
Every message that names an extra asked for the checkout's form, which a wheel user cannot run.
Here: the decision, the detection on this checkout and on an installed layout, and that no
message writes its own line (tests/test_wheel.py runs a real wheel).
"""
from __future__ import annotations

import ast
import os
import re
import sys
from pathlib import Path

import pytest

from sensekit import installed
from sensekit.installed import from_checkout, install_command, install_hint, is_checkout, python_command

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
PIP_EXTRA = re.compile(r"pip install (?:-e )?'?(?:\.|sensekit)\[")


def test_the_checkout_and_the_wheel_each_get_their_own_line():
    assert install_command("hands", checkout=True) == "python -m pip install -e '.[hands]'"
    assert install_command("hands", checkout=False) == "python -m pip install 'sensekit[hands]'"
    assert install_command("hands,test", checkout=False) == "python -m pip install 'sensekit[hands,test]'"
    assert install_command("hands", checkout=False, python="python3") == "python3 -m pip install 'sensekit[hands]'"


@pytest.mark.parametrize("extra", ["", "Hands", "hands test", "hands]'; rm -rf ~ #"])
def test_an_extra_that_is_not_a_name_is_refused(extra):
    with pytest.raises(ValueError, match="extra must be names"):
        install_command(extra, checkout=False)


def test_this_checkout_is_a_checkout():
    assert from_checkout() and is_checkout(REPO / "sensekit")
    assert install_hint("voice") == f"{python_command()} -m pip install -e '.[voice]'"


def test_an_installed_layout_is_not(tmp_path):
    package = tmp_path / "site-packages" / "sensekit"
    package.mkdir(parents=True)
    assert not is_checkout(package)
    (tmp_path / "site-packages" / "pyproject.toml").write_text('[project]\nname = "someone-else"\n')
    assert not is_checkout(package)                    # a pyproject.toml, but another project's
    (tmp_path / "site-packages" / "pyproject.toml").write_text('[project]\nname = "sensekit"\n')
    assert is_checkout(package)


def test_the_hint_follows_the_detection(monkeypatch):
    monkeypatch.setattr(installed, "from_checkout", lambda: False)
    assert install_hint("midi") == f"{python_command()} -m pip install 'sensekit[midi]'"


def _python(folder: Path, name: str, target: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).symlink_to(target)
    return folder / name


def test_the_hint_runs_pip_by_this_python_not_the_pip_on_the_path(tmp_path):
    """A venv not activated: ``pip`` and ``python`` on the PATH are the system's, and ``pip install``
    put the extra where this sensekit never looks. The hint names this interpreter: by ``python``
    or ``python3`` when the PATH finds it so, else by its full path."""
    real = tmp_path / "real-python3.11"
    real.write_text("#!/bin/sh\n")
    real.chmod(0o755)
    system = _python(tmp_path / "usr" / "bin", "python3", real)
    _python(tmp_path / "usr" / "bin", "python", real)
    venv = _python(tmp_path / "venv" / "bin", "python", real)        # the same file, another environment
    _python(tmp_path / "venv" / "bin", "python3", real)
    venv_dirs = os.pathsep.join([str(venv.parent), str(system.parent)])
    assert python_command(str(venv), path=venv_dirs) == "python"              # activated
    assert python_command(str(venv.parent / "python3"), path=venv_dirs) == "python"
    assert python_command(str(venv), path=str(system.parent)) == str(venv)     # not activated: the full path
    assert python_command(str(system), path=str(system.parent)) == "python"
    (system.parent / "python").unlink()                                   # a system with python3 alone
    assert python_command(str(system), path=str(system.parent)) == "python3"
    spaced = _python(tmp_path / "my venv" / "bin", "python", real)
    assert python_command(str(spaced), path=str(system.parent)) == f"'{spaced}'"
    assert python_command("", path=str(system.parent)) == "python3"       # sys.executable unknown
    hint = install_command("voice", checkout=True, python=python_command(str(venv), path=str(system.parent)))
    assert hint == f"{venv} -m pip install -e '.[voice]'"


#: every install line of an extra written in the sources, docstrings included
_MENTION = re.compile(r"(?:([\w./-]+) -m )?pip install (?:-e )?'?(?:\.|sensekit)\[([a-z0-9_,-]+)\]'?")


def test_every_docstring_that_names_an_extra_says_the_hints_line():
    """The extras' modules said ``pip install -e '.[X]'`` in their docstrings while the messages
    said another line: each mention is now ``install_command``'s checkout line (``python -m pip``)."""
    wrong = []
    for path in _sources():
        if path.name == "installed.py":
            continue
        for m in _MENTION.finditer(path.read_text(encoding="utf-8")):
            if m.group(0) != install_command(m.group(2), checkout=True):
                wrong.append(f"{path.relative_to(REPO)}: {m.group(0)}")
    assert not wrong, wrong


def _strings_outside_docstrings(tree: ast.AST) -> list[str]:
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def _sources() -> list[Path]:
    return [p for folder in ("sensekit", "apps") for p in (REPO / folder).rglob("*.py") if "__pycache__" not in p.parts]


def test_no_message_writes_its_own_install_line():
    """Every install line of an extra comes from ``install_hint`` (docstrings aside: the API reference
    is read beside the checkout)."""
    own = [f"{path.relative_to(REPO)}: {text!r}" for path in _sources() if path.name != "installed.py"
           for text in _strings_outside_docstrings(ast.parse(path.read_text(encoding="utf-8")))
           if PIP_EXTRA.search(text)]
    assert not own, own


#: the tests of the hint's own text (the forms for a checkout and a wheel, the README's and docs' lines)
_HINT_TESTS = {"test_installed.py", "test_wheel.py", "test_install.py", "test_readme.py"}


def test_no_test_writes_its_own_install_line():
    """The tests' skip messages said ``pip install -e '.[hands]'`` (harden28), the line the hints
    no longer give (the ``pip`` on the PATH may be another Python's), and their checks of an
    error's hint looked for that fragment: each is now ``install_hint``'s text (one source).
    Docstrings aside; the tests of the hint's own text aside."""
    own = [f"{path.relative_to(REPO)}: {text!r}" for path in (REPO / "tests").rglob("*.py")
           if path.name not in _HINT_TESTS and "__pycache__" not in path.parts
           for text in _strings_outside_docstrings(ast.parse(path.read_text(encoding="utf-8")))
           if PIP_EXTRA.search(text)]
    assert not own, own


def test_every_extra_a_hint_names_is_declared():
    declared = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    code = "\n".join(p.read_text(encoding="utf-8") for p in _sources())
    named = {*re.findall(r"install_hint\([\"'](\w+)[\"']\)", code), *re.findall(r"\bextra=[\"'](\w+)[\"']", code)}
    assert {"hands", "voice", "midi", "salient"} <= named, named
    assert named <= declared, named - declared
