"""The install line a message gives for an optional extra (sensekit.installed).

A checkout adds an extra with ``pip install -e '.[X]'``; a wheel (from the file or a git URL) with
``pip install 'sensekit[X]'``. Every message that names an extra asked for the checkout's form,
which a wheel user cannot run. Here: the decision, the detection on this checkout and on an
installed layout, and that no message writes its own line (tests/test_wheel.py runs a real wheel).
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from sensekit import installed
from sensekit.installed import from_checkout, install_command, install_hint, is_checkout

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
PIP_EXTRA = re.compile(r"pip install (?:-e )?'?(?:\.|sensekit)\[")


def test_the_checkout_and_the_wheel_each_get_their_own_line():
    assert install_command("hands", checkout=True) == "pip install -e '.[hands]'"
    assert install_command("hands", checkout=False) == "pip install 'sensekit[hands]'"
    assert install_command("hands,test", checkout=False) == "pip install 'sensekit[hands,test]'"


@pytest.mark.parametrize("extra", ["", "Hands", "hands test", "hands]'; rm -rf ~ #"])
def test_an_extra_that_is_not_a_name_is_refused(extra):
    with pytest.raises(ValueError, match="extra must be names"):
        install_command(extra, checkout=False)


def test_this_checkout_is_a_checkout():
    assert from_checkout() and is_checkout(REPO / "sensekit")
    assert install_hint("voice") == "pip install -e '.[voice]'"


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
    assert install_hint("midi") == "pip install 'sensekit[midi]'"


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


def test_every_extra_a_hint_names_is_declared():
    declared = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    code = "\n".join(p.read_text(encoding="utf-8") for p in _sources())
    named = {*re.findall(r"install_hint\([\"'](\w+)[\"']\)", code), *re.findall(r"\bextra=[\"'](\w+)[\"']", code)}
    assert {"hands", "voice", "midi", "salient"} <= named, named
    assert named <= declared, named - declared
