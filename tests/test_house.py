"""House rules the code base keeps: small modules, argparse only in the CLI."""
from pathlib import Path

import sensekit

PACKAGE = Path(sensekit.__file__).parent
MAX_LINES = 600


def test_no_module_is_over_600_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split these modules (one concept each, at most {MAX_LINES} lines): {long}"


def test_argparse_lives_only_under_cli():
    outside = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
               if "cli" not in p.relative_to(PACKAGE).parts[:1]
               and "import argparse" in p.read_text(encoding="utf-8")]
    assert not outside, f"argparse belongs in sensekit/cli/: {outside}"


# --- the floors: no import runs up, no import goes round -------------------------------------

import ast  # noqa: E402 - the helpers below are this section's own
import graphlib  # noqa: E402

#: the package's floors, bottom first: a module may import its own floor and the ones below,
#: never one above. Every import counts - at module level, inside functions and under
#: TYPE_CHECKING. A ``__main__`` module (``python -m sensekit``, ``python -m sensekit.synth``) is
#: a script that nothing imports: it stands on the scripts' floor, whatever folder it is in.
#: ``evaluation`` (training and scoring, for benchmarks and tests) stands above everything, so
#: nothing the runtime loads may import it. docs/ARCHITECTURE.md draws the same floors.
FLOORS: list[set[str]] = [
    {"errors", "clock", "ratelimit", "safe_read", "suggest", "bind_errors", "stop_signals"},
    {"events", "event_base", "event_types", "settings", "paths", "validate", "arg_types", "event_sink", "budget",
     "atomic", "installed", "__init__", "py"},
    {"capture", "collide", "osc"},
    {"runner", "vision", "audio", "steer", "synth"},
    {"profile", "midi"},
    {"app"},
    {"panel"},
    {"cli"},
    {"__main__"},
    {"evaluation"},
]
SCRIPTS_FLOOR = FLOORS.index({"__main__"})


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(tree: ast.AST, package: str, known: set[str]) -> set[str]:
    """Every sensekit module ``tree`` imports (a ``from pkg import sub`` names the submodule)."""
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
    return {m for m in found if m in known}


def _import_graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    known = set(files)
    graph = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = _imports(ast.parse(path.read_text(encoding="utf-8")), package, known) - {name}
    return graph


def _floor(module: str) -> int:
    if module.rpartition(".")[2] == "__main__":
        return SCRIPTS_FLOOR
    part = module.split(".")[1] if "." in module else "__init__"
    part = part.removesuffix(".py")
    for level, names in enumerate(FLOORS):
        if part in names:
            return level
    raise AssertionError(f"{module} is on no floor: add its part to FLOORS in tests/test_house.py")


def test_no_import_runs_from_a_lower_floor_to_a_higher_one():
    up = sorted(f"{src} -> {dst}" for src, dsts in _import_graph().items() for dst in dsts
                if _floor(dst) > _floor(src))
    assert not up, "imports that run back up (move the shared piece down, or pass it in):\n" + "\n".join(up)


def test_no_import_cycle():
    try:
        tuple(graphlib.TopologicalSorter(_import_graph()).static_order())
    except graphlib.CycleError as exc:
        raise AssertionError(f"an import cycle: {' -> '.join(exc.args[1])}") from None


# --- evaluation code stays out of the runtime -------------------------------------------------

REPO = PACKAGE.parent


def _names_evaluation(path: Path) -> bool:
    """Whether ``path`` imports anything of ``sensekit.evaluation`` (any form, at any depth)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        if any(n == "sensekit.evaluation" or n.startswith("sensekit.evaluation.") for n in names):
            return True
    return False


def test_the_evaluation_floor_is_the_top_one():
    assert _floor("sensekit.evaluation.audio.clap_training") == len(FLOORS) - 1
    assert all(_floor(m) < len(FLOORS) - 1 for m in _import_graph()
               if not m.startswith("sensekit.evaluation"))


def test_nothing_outside_evaluation_imports_it():
    runtime = [p for p in PACKAGE.rglob("*.py") if "evaluation" not in p.relative_to(PACKAGE).parts[:1]]
    runtime += [p for folder in ("apps", "examples") if (REPO / folder).is_dir()
                for p in (REPO / folder).rglob("*.py")]
    assert len(runtime) > 50, "the runtime's files were not found"
    graph = _import_graph()
    inside = {m for m, dsts in graph.items() if not m.startswith("sensekit.evaluation")
              and any(d.startswith("sensekit.evaluation") for d in dsts)}
    named = sorted(str(p.relative_to(REPO)) for p in runtime if _names_evaluation(p))
    assert not inside and not named, (
        f"sensekit.evaluation is for benchmarks and tests only; imported by: {sorted(inside) + named}")


# --- benchmarks take helpers, not test modules ------------------------------------------------

#: the test modules (``tests/**/test_*.py``) a benchmark still imports, with what it takes: a
#: helper a benchmark needs lives in a helper module (``tests/fuzz_mutate.py``, ``tests/capture/
#: mjpeg_server.py``), since importing a test module runs its fixtures' and hypothesis' set-up and
#: ties the benchmark to the test's private names. The list only shrinks: a new one fails, and so
#: does an entry no benchmark imports any more.
BENCHMARKS_STILL_IMPORT = {
    "tests.test_arg_types": "the constructor sweep's tables (_fault_h22.py, by name through importlib)",
}


def _test_modules_named(path: Path) -> set[str]:
    """The ``tests....test_*`` modules ``path`` imports: ``import``, ``from ... import`` and
    ``importlib.import_module("...")`` with a literal name."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            names.add(node.args[0].value)
    return {n for n in names if n.startswith("tests.") and n.rpartition(".")[2].startswith("test_")}


def test_benchmarks_take_helpers_not_test_modules():
    files = sorted((REPO / "benchmarks").glob("*.py"))
    assert len(files) > 50, "the benchmarks were not found"
    used: dict[str, list[str]] = {}
    for path in files:
        for name in _test_modules_named(path):
            used.setdefault(name, []).append(path.name)
    new = {m: sorted(f) for m, f in used.items() if m not in BENCHMARKS_STILL_IMPORT}
    gone = sorted(set(BENCHMARKS_STILL_IMPORT) - set(used))
    assert not new, f"benchmarks import test modules (move what they take to a helper module under tests/): {new}"
    assert not gone, f"no benchmark imports these any more: strike them from BENCHMARKS_STILL_IMPORT: {gone}"
