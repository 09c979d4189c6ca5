"""Constructor arguments checked against their type hints, at the call, in one line.

``AudioStage(clap=1)`` used to fail later, inside, as ``AttributeError: 'int' object has no attribute
'set_gain'``. ``@checked`` on a public ``__init__`` (and ``check_fields`` in a dataclass's
``__post_init__``) compares every argument given with its annotation first and raises
``ArgumentTypeError`` (a ``TypeError`` and a ``ConfigError``, so a ``ValueError`` too) naming the
class, the argument, what it takes and what it got: "`AudioStage(clap=...)` must be a ClapDetector
or None, got int 1". Values are checked, never converted; the constructors' own range checks
(``sensekit.validate``) still follow.

What is checked: classes (``isinstance``), ``None``, unions, ``Literal``, ``bool``/``int``/``float``
as a type checker takes them (an int is a float, a bool an int; NumPy scalars too), ``str`` (and a
``str`` refused where a collection of things is asked: ``events="clap"`` is not a list of names),
tuples (any sequence of the right length, each item checked), ``Sequence``/``Iterable``/``Mapping``
(the container only: an iterator is never consumed), ``Callable``, ``os.PathLike``. An annotation
that names something not importable at run time (``TYPE_CHECKING`` imports), a ``TypeVar`` or a
protocol among the items of a collection (the constructor's own check says what is missing) is not
checked; a protocol argument is checked by its members.
Cost: the hints are resolved once per constructor; a check is a few microseconds per argument.
"""
from __future__ import annotations

import collections.abc as cabc
import functools
import inspect
import numbers
import os
import types
import typing
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import numpy as np

from sensekit.errors import ConfigError

__all__ = ["ArgumentTypeError", "check_fields", "check_value", "checked", "checked_except"]

P = ParamSpec("P")
R = TypeVar("R")

_UNCHECKED = object()   # an annotation that cannot be checked at run time


class ArgumentTypeError(ConfigError, TypeError):
    """An argument of the public API has the wrong type (also a ``ValueError``, as ``ConfigError``)."""


def _short(value: Any) -> str:
    r = repr(value)
    return r if len(r) <= 60 else r[:57] + "..."


def _resolve(ann: Any, globalns: dict[str, Any]) -> Any:
    if isinstance(ann, str):
        try:
            return eval(ann, globalns)     # the module's own annotation, as typing resolves it
        except Exception:
            return _UNCHECKED
    return ann


_SIMPLE = {float: "a number", int: "an integer", bool: "True or False", str: "a str"}
_WORDS = {"Iterable": "an iterable (a list, not a str)", "Sequence": "a sequence (a list or tuple, not a str)",
          "Mapping": "a mapping (a dict)", "Callable": "a callable", "PathLike": "a path"}


def _name(hint: Any) -> str:
    """``hint`` in words: "a ClapDetector or None", "one of 'any', 'horizontal'"."""
    origin = typing.get_origin(hint)
    if hint is None or hint is type(None):
        return "None"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_name(a) for a in typing.get_args(hint))
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(hint))
    if origin is tuple:
        return _tuple_name(typing.get_args(hint))
    if origin is not None:
        base = getattr(origin, "__name__", str(origin))
        return _WORDS.get(base, f"a {base}")
    if hint in _SIMPLE:
        return _SIMPLE[hint]
    n = getattr(hint, "__name__", str(hint))
    return f"an {n}" if n[:1].lower() in "aeiou" else f"a {n}"


def _tuple_name(args: tuple[Any, ...]) -> str:
    if len(args) == 2 and args[1] is Ellipsis:
        return f"a tuple of {_name(args[0]).removeprefix('a ').removeprefix('an ')}"
    return f"a tuple of {len(args)} ({', '.join(_name(a).split(' ')[-1] for a in args)})"


def check_value(value: Any, hint: Any, *, item: bool = False) -> bool:
    """Whether ``value`` fits ``hint`` (``True`` for what cannot be checked). A protocol is checked by
    its members (``Clock``: ``now``, ``sleep_until``), but not for the items of a collection (``item``:
    the constructor's own check names the item and what it lacks: ``Runner``'s stages)."""
    if hint is _UNCHECKED or hint is Any or hint is object or isinstance(hint, (TypeVar, str)):
        return True
    if hint is None or hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(check_value(value, a, item=item) for a in args)
    if origin is typing.Literal:
        return any(value == a and type(value) is type(a) for a in args)
    if hint in _NUMBERS:
        return _NUMBERS[hint](value)
    if origin is tuple:
        return _check_tuple(value, args)
    if origin is not None:
        return _check_generic(value, origin, args)
    if isinstance(hint, type):
        if getattr(hint, "_is_protocol", False):
            return item or _has_members(value, hint)
        return isinstance(value, hint)
    return True


def _has_members(value: Any, proto: type) -> bool:
    """Whether ``value`` has every public member ``proto`` (a ``Protocol``) declares."""
    names = {n for base in proto.__mro__[:-1] if base.__module__ not in ("typing", "builtins")
             for n in (*vars(base), *getattr(base, "__annotations__", {})) if not n.startswith("_")}
    return all(hasattr(value, n) for n in names)


_NUMBERS: dict[Any, Callable[[Any], bool]] = {
    float: lambda v: isinstance(v, numbers.Real),
    int: lambda v: isinstance(v, (int, np.integer)),
    bool: lambda v: isinstance(v, (bool, np.bool_)),
}


def _check_tuple(value: Any, args: tuple[Any, ...]) -> bool:
    if isinstance(value, (str, bytes)) or not isinstance(value, (cabc.Sequence, np.ndarray)):
        return False
    if len(args) == 2 and args[1] is Ellipsis:
        return all(check_value(v, args[0], item=True) for v in value)
    return len(value) == len(args) and all(check_value(v, a, item=True) for v, a in zip(value, args))


def _check_generic(value: Any, origin: Any, args: tuple[Any, ...]) -> bool:
    if origin is os.PathLike:
        return isinstance(value, os.PathLike)
    if origin in (cabc.Callable, typing.Callable):
        return callable(value)
    if origin is type:
        return isinstance(value, type)
    if not isinstance(origin, type):
        return True
    if origin in (cabc.Iterable, cabc.Sequence, cabc.Collection, list, set, frozenset, cabc.Set):
        if isinstance(value, (str, bytes)):
            return False                      # "clap" is not a list of event names
        if origin in (cabc.Sequence, cabc.Collection) and isinstance(value, np.ndarray):
            return True
        if not isinstance(value, origin):
            return False
        if args and isinstance(value, (list, tuple)) and len(value) <= 64:
            return all(check_value(v, args[0], item=True) for v in value)
        return True
    return isinstance(value, origin)


@functools.cache
def _hints(func: Callable[..., Any]) -> tuple[inspect.Signature, dict[str, Any]]:
    sig = inspect.signature(func)
    globalns = getattr(func, "__globals__", {})
    hints = {name: _resolve(p.annotation, globalns) for name, p in sig.parameters.items()
             if p.annotation is not inspect.Parameter.empty
             and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and name != "self"}
    return sig, hints


def _fail(owner: str, name: str, hint: Any, value: Any) -> ArgumentTypeError:
    return ArgumentTypeError(f"`{owner}({name}=...)` must be {_name(hint)}, "
                             f"got {type(value).__name__} {_short(value)}")


def checked_except(*own: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """``checked`` but for the arguments ``own``, which the constructor checks itself in better words
    (``Runner``'s source: "the Runner takes an open source, not the spec 'demo' ...")."""
    def decorate(init: Callable[P, R]) -> Callable[P, R]:
        owner = init.__qualname__.rsplit(".", 1)[0]

        @functools.wraps(init)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            sig, hints = _hints(init)
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{owner}: {exc}") from None
            for name, value in bound.arguments.items():
                hint = hints.get(name, _UNCHECKED)
                if name not in own and not check_value(value, hint):
                    raise _fail(owner, name, hint, value)
            return init(*args, **kwargs)

        return wrapper
    return decorate


def checked(init: Callable[P, R]) -> Callable[P, R]:
    """Check the arguments of ``init`` (a public ``__init__``) against its annotations at every call."""
    return checked_except()(init)


def check_fields(obj: Any) -> None:
    """A dataclass's fields against their annotations (call it from ``__post_init__``)."""
    import dataclasses

    cls = type(obj)
    globalns = vars(inspect.getmodule(cls)) if inspect.getmodule(cls) else {}
    for f in dataclasses.fields(obj):
        hint = _resolve(f.type, globalns)
        value = getattr(obj, f.name)
        if not check_value(value, hint):
            raise _fail(cls.__name__, f.name, hint, value)
