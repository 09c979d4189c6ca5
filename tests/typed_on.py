"""Helpers of the tests that ``on`` is typed by event name (``tests/test_dispatch_typed.py``,
``tests/apps/test_subscribe.py``): the overloads' table, and ``mypy --strict`` on a user's file."""
from __future__ import annotations

import typing
from pathlib import Path
from typing import Any, Callable

import sensekit.events


def named_overloads(on: Callable[..., Any]) -> dict[str, type]:
    """Event name -> the class its overload's handler takes (the literal-name overloads of ``on``)."""
    out: dict[str, type] = {}
    for fn in typing.get_overloads(on):
        hints = typing.get_type_hints(fn, globalns=vars(sensekit.events))
        if typing.get_origin(hints["name"]) is typing.Literal:
            (name,) = typing.get_args(hints["name"])
            params, _ = typing.get_args(hints["handler"])
            assert name not in out, f"two overloads for {name!r}"
            out[name] = params[0]
    return out


def mypy_strict(tmp_path: Path, code: str) -> tuple[str, str, int]:
    """``mypy --strict`` on ``code`` written as ``tmp_path/mine.py`` (no cache kept): stdout, stderr, status."""
    from mypy import api

    (tmp_path / "mine.py").write_text(code)
    return api.run(["--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
                    str(tmp_path / "mine.py")])
