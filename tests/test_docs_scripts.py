"""Every ``benchmarks/NAME.py`` the docs name is in the tree, or its page says where it went.

A page that names a script no longer in ``benchmarks/`` says so at the script's first mention on
that page (within the sentence after it): ``at commit HASH`` (a commit holding it, found with
``git log --all -- benchmarks/NAME.py``) or ``in no commit of this repository`` (it lived on a
branch that was not kept). With git and the repository's history at hand, the claim is checked
too; from an unpacked sdist only the mark is."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.markdown_commands import REPO

SCRIPT = re.compile(r"benchmarks/([A-Za-z0-9_]+)\.py")
MARK = re.compile(r"at commit ([0-9a-f]{7,40})\b|in no commit of this repository")
#: how far after a script's first mention on a page its mark may stand (its sentence)
MARK_REACH = 320


def _pages() -> list[Path]:
    return sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md"]


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, timeout=60)


def _has_history() -> bool:
    return shutil.which("git") is not None and (REPO / ".git").exists() and _git("rev-parse", "HEAD").returncode == 0


def missing_scripts_unmarked(pages: list[Path], *, check_history: bool) -> list[str]:
    """What is wrong: a script named but neither in ``benchmarks/`` nor marked (or marked with a
    commit that does not hold it, or as in no commit while one does)."""
    problems = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        first: dict[str, int] = {}
        for m in SCRIPT.finditer(text):
            first.setdefault(m.group(1), m.end())
        for name, end in first.items():
            path = f"benchmarks/{name}.py"
            if (REPO / path).is_file():
                continue
            where = f"{page.name}:{text.count(chr(10), 0, end) + 1}"
            mark = MARK.search(text, end, end + MARK_REACH)
            if mark is None:
                problems.append(f"{where}: {path} is not in the tree and its first mention on the page does "
                                f"not say at which commit it was (or 'in no commit of this repository')")
            elif check_history and mark.group(1):
                if _git("cat-file", "-e", f"{mark.group(1)}:{path}").returncode != 0:
                    problems.append(f"{where}: commit {mark.group(1)} holds no {path}")
            elif check_history:
                held = _git("log", "--all", "--format=%h", "--", path).stdout.split()
                if held:
                    problems.append(f"{where}: {path} is said to be in no commit, but {held[0]} holds it")
    return problems


def test_every_benchmark_script_the_docs_name_exists_or_is_marked_with_its_commit():
    problems = missing_scripts_unmarked(_pages(), check_history=_has_history())
    assert not problems, "\n".join(problems)


def test_an_unmarked_missing_script_is_found(tmp_path):
    """The check itself: a page naming a script that is not there, without a mark, is reported;
    with a mark of a commit that does not hold it, too."""
    page = tmp_path / "page.md"
    page.write_text("Run `benchmarks/no_such_script.py --fast` to see it.\n", encoding="utf-8")
    assert len(missing_scripts_unmarked([page], check_history=False)) == 1
    page.write_text("`benchmarks/no_such_script.py` (in no commit of this repository).\n", encoding="utf-8")
    assert missing_scripts_unmarked([page], check_history=False) == []
    page.write_text("`benchmarks/vision.py` is in the tree.\n", encoding="utf-8")
    assert missing_scripts_unmarked([page], check_history=False) == []
    if _has_history():
        root = _git("rev-list", "--max-parents=0", "HEAD").stdout.split()[0]
        page.write_text(f"`benchmarks/no_such_script.py`, at commit {root[:7]}.\n", encoding="utf-8")
        assert "holds no benchmarks/no_such_script.py" in missing_scripts_unmarked([page], check_history=True)[0]
