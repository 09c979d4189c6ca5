"""Live settings: ``Tunable`` (a detector or app with a declared group) and ``Tuning`` (a run's).

``Tunable`` is a mixin. A class names its section on its class line and declares each setting
once, as a class attribute (``sensekit.settings.declare``)::

    class PitchTracker(Tunable, section="pitch", title="pitch (F0), YIN", rule=_check_band):
        fmin = setting(70.0, "lowest pitch looked for", unit="Hz", lo=20, hi=2000)

Creating the class builds ``SETTINGS`` (the ``Group``, registered in the table) from the
declarations of the class and of its bases and mixins, the class's own first; a subclass that
names no section inherits its parent's group. The constructor calls
``init_settings(values)``: the values (defaults for what is not given) are checked against the
declaration and stored as instance attributes of the same name, read as plain attributes
(``self.fmin``, typed ``float``); nothing else writes them. Then:

- ``settings()`` -> ``{name: value}``, the whole group (values waiting to apply included);
- ``apply(**values)`` checks *every* value first (and the group's cross-setting rule, and
  ``check_live``: what the running object can take), so on any error nothing changes; good
  values wait in a pending dict. It is thread-safe: OSC and a panel call it from their own
  threads;
- the owner calls ``apply_pending()`` at the start of its next frame or block (the check is
  ``if self._pending:``, one attribute read, so settings cost nothing per frame); it stores
  the values and calls ``settings_changed(changed)`` for derived state. Values wait in one
  dict per object, so a key sent again before it applied keeps only its latest value (the
  earlier one is counted in ``settings_superseded``, never applied);
- inside a run (``Runner.process`` installs the run's ``SettingsBudget`` for its thread with
  ``budget_for_thread``), applying is budgeted by the panel's rule (``sensekit.budget``): it may
  take 10 % of the run's time, 0.25 s banked, together with the panel's commands (a panel
  charges its ``CommandQueue`` to the same budget). While the budget is overdrawn, ``apply_pending``
  leaves the values waiting (``SettingsBudget.deferred``) and a later frame or block applies
  the latest ones. A person moving a slider never sees it; a flood of settings that rebuild
  (``voice.words``, ``background.samples``) gets a tenth of the run instead of all of it.
  ``apply_now`` (the loop's own changes: a key press, ``--set``) always applies at once;
- ``learned()`` -> values learned from data that a profile may keep (a noise floor);
- ``tunables()`` -> the object and the tunables it owns (a stage's detectors).

``Tuning`` is the table of one run: it finds the tunables of the run's roots (the app and the
runner's stages, looked up on every call, so a stage added later is seen), and speaks in keys
(``motion.threshold``). Every adapter goes through it: ``apply({"motion.threshold": 30})``
checks all values against the declarations and the live objects before applying any;
``settings()``, ``learned()`` and ``changed()`` (what was applied through the table since the
run's ``baseline``, the values the app started with, and still differs from it) read the run
back, for ``Shift+S`` and the profile.

``fixed`` (``{key: (value, why)}``, empty unless the run sets it) holds settings this run keeps at
one value whatever they are set to (an app that mirrors the camera itself: ``vision.mirror``
stays true); ``apply`` refuses another value for them with ``why`` (``refusal``), so every
door (the panel, OSC, ``--set`` and a profile) says the same sentence.

Failure modes: an unknown key or a bad value is a ``ConfigError`` naming the key and value;
a key whose group is not running is reported in ``Applied.unused`` (callers warn for what the
user typed, and stay quiet for a preset or a profile that covers more than this run).
"""
from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Iterator, Mapping

from sensekit.budget import TimeBudget
from sensekit.errors import ConfigError
from sensekit.settings.declare import Group, Setting, group
from sensekit.settings.registry import lookup, split_key

__all__ = ["Tunable", "Tuning", "Applied", "SettingsBudget", "budget_for_thread", "swap_budget", "catch_up",
           "charge_budget", "find_tunables", "apply_all_pending", "parse_values", "check_values"]


class SettingsBudget(TimeBudget):
    """The time a run's thread may spend applying settings (see the module docstring);
    ``applied`` counts the objects' values applied under it, ``deferred`` the times values
    were left waiting because it was spent. Each
    application is charged at least ``min_cost_s``: a new value can leave work for the next
    frame that the budget does not see (a new background model warms up on it)."""

    applied: int = 0
    deferred: int = 0
    min_cost_s: float = 0.005


class _ThisThread(threading.local):
    budget: SettingsBudget | None = None


_this_thread = _ThisThread()


def swap_budget(budget: SettingsBudget | None) -> SettingsBudget | None:
    """Install ``budget`` for ``apply_pending`` on the calling thread; returns the previous one
    (the hot path's form of ``budget_for_thread``)."""
    previous, _this_thread.budget = _this_thread.budget, budget
    return previous


@contextlib.contextmanager
def budget_for_thread(budget: SettingsBudget | None) -> Iterator[None]:
    """``apply_pending`` on this thread is paced by ``budget`` inside the block."""
    previous = swap_budget(budget)
    try:
        yield
    finally:
        swap_budget(previous)


class Tunable:
    """Mixin for a class that declares ``SETTINGS``; see the module docstring."""

    SETTINGS: ClassVar[Group]
    #: bumped by every ``apply`` anywhere: a stage that owns tunables compares it with the value
    #: it saw last, and only then looks for pending values (one comparison per item)
    generation: ClassVar[int] = 0
    #: values replaced by a later value of the same key before they applied (never applied)
    settings_superseded: int = 0
    _pending: dict[str, Any] | None = None
    _settings_lock: threading.Lock

    def __init_subclass__(cls, *, section: str | None = None, title: str = "",
                          rule: Callable[[Mapping[str, Any]], None] | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared: dict[str, Setting[Any]] = {}
        for klass in cls.__mro__:                 # its own first, then its bases' and mixins
            for name, value in vars(klass).items():
                if isinstance(value, Setting):
                    declared.setdefault(name, value)
        if section is None:
            if any(not s.section for s in declared.values()):
                raise ConfigError(f"{cls.__qualname__} declares settings but names no section "
                                  f"(class {cls.__name__}(Tunable, section=..., title=...))")
            return
        cls.SETTINGS = group(section, title, declared, rule, module=cls.__module__)
        for placed in cls.SETTINGS.items:       # the named, placed declaration is the attribute
            setattr(cls, placed.name, placed)

    def init_settings(self, values: Mapping[str, Any] | None = None, **more: Any) -> None:
        """Check ``values`` (and ``more``) against ``SETTINGS``, fill in the defaults, store them."""
        group = type(self).SETTINGS
        given = {**(values or {}), **more}
        for name in given:
            group[name]                                   # unknown name: ConfigError listing them
        checked = group.check({**group.defaults(), **given})
        self._settings_lock = threading.Lock()
        self._pending = None
        for name, value in checked.items():
            self._store_setting(name, value)

    # -- reading ------------------------------------------------------------------
    def _store_setting(self, name: str, value: Any) -> None:
        # the instance's value hides the (non-data) descriptor. Through setattr, not __dict__:
        # touching __dict__ makes CPython keep a real dict for the instance, and every attribute
        # read of the object (the hot paths' too) then costs ~3x (20 ns instead of 7 on 3.11)
        setattr(self, name, value)

    def _read_setting(self, name: str) -> Any:
        return getattr(self, name)

    def settings(self) -> dict[str, Any]:
        """Every setting of the group: the value in use, or the one waiting to apply."""
        out = {s.name: self._read_setting(s.name) for s in type(self).SETTINGS.items}
        pending = self._pending
        if pending:
            out.update(pending)
        return out

    def learned(self) -> dict[str, Any]:
        """Values this object learned from data that a profile may keep (name -> value)."""
        return {}

    def in_use(self) -> dict[str, Any]:
        """For a setting left ``None`` to be learned: the value in use now, or ``"learning"``
        while there is none yet (name -> value; what the panel shows in the empty box)."""
        return {}

    def tunables(self) -> Iterator[Tunable]:
        """This object and the tunable objects it owns."""
        yield self

    # -- changing ------------------------------------------------------------------
    def check_settings(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` checked against the declaration and the current values, then against what
        this running object can take (``check_live``); nothing stored."""
        current = self.settings()
        checked = type(self).SETTINGS.check(values, current)
        self.check_live({**current, **checked})
        return checked

    def check_live(self, values: Mapping[str, Any]) -> None:
        """Hook: ``ConfigError`` for values the declaration allows but this running object
        cannot take (a pitch range above what the rate it runs at holds, a word its recogniser
        does not know). ``values`` is the whole group with the new values in. Called on the
        thread that applies them (OSC's, the panel's), so a value is refused at the door, in one
        line, instead of failing on the run's thread when it takes effect. Default: nothing."""

    def apply(self, **values: Any) -> dict[str, Any]:
        """Check every value, then queue them for the next frame or block (thread-safe).

        Returns the checked values. On any error nothing is queued.
        """
        with self._settings_lock:
            checked = self.check_settings(values)
            current = self.settings()
            changes = {k: v for k, v in checked.items() if k not in current or current[k] != v}
            if changes:
                pending = self._pending or {}
                replaced = sum(1 for k in changes if k in pending)
                if replaced:
                    self.settings_superseded += replaced
                self._pending = {**pending, **changes}
                Tunable.generation += 1
        return checked

    def apply_pending(self) -> dict[str, Any]:
        """Store the queued values and call ``settings_changed``; the owner's loop calls this.
        Inside a run whose settings budget is spent, nothing changes yet: returns ``{}`` and the
        values keep waiting (see the module docstring)."""
        budget = _this_thread.budget
        if budget is None:
            return self._apply_pending_now()
        if not budget.available("settings"):
            budget.deferred += 1
            return {}
        clock = budget.clock
        started = clock.now()
        budget.applied += 1
        try:
            return self._apply_pending_now()
        finally:
            ended = clock.now()
            budget.charge(max(budget.min_cost_s, ended - started), ended, who="settings")

    def _apply_pending_now(self) -> dict[str, Any]:
        with self._settings_lock:
            changes, self._pending = self._pending, None
        if not changes:
            return {}
        for name, value in changes.items():
            self._store_setting(name, value)
        self.settings_changed(changes)
        return changes

    def apply_now(self, **values: Any) -> dict[str, Any]:
        """``apply`` and ``apply_pending`` at once (for the loop's own thread)."""
        self.apply(**values)
        return self._apply_pending_now()

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        """Hook: recompute what depends on the changed settings (default: nothing)."""


def charge_budget(cost_s: float) -> None:
    """Charge ``cost_s`` seconds of work a new value left behind (a model rebuilt on the next
    frame) to the settings budget of the calling thread's run, if it has one."""
    budget = _this_thread.budget
    if budget is not None:
        budget.charge(cost_s, who="settings")


def apply_all_pending(objs: Iterable[Tunable]) -> bool:
    """``apply_pending`` on each object with values waiting (a composite stage, per item, once
    ``Tunable.generation`` moved). Returns whether none is left waiting (the run's settings
    budget may leave some for a later item)."""
    done = True
    for t in objs:
        if t._pending:
            t.apply_pending()
            if t._pending:
                done = False
    return done


def catch_up(seen: int, tunables: Callable[[], Iterable[Tunable]]) -> int:
    """A composite stage's per-item check: if ``Tunable.generation`` moved since ``seen``,
    ``apply_all_pending(tunables())``. Returns the generation to remember (``-1`` while some
    values wait for the run's settings budget, so the next item looks again)."""
    now = Tunable.generation
    if now == seen:
        return seen
    return now if apply_all_pending(tunables()) else -1


def find_tunables(roots: Iterable[Any]) -> list[Tunable]:
    """The tunables of ``roots`` (objects with ``tunables()``), each once, in order."""
    out: list[Tunable] = []
    seen: set[int] = set()
    for root in roots:
        walk = getattr(root, "tunables", None)
        if walk is None:
            continue
        for t in walk():
            if id(t) not in seen and isinstance(t, Tunable):
                seen.add(id(t))
                out.append(t)
    return out


@dataclass
class Applied:
    """What ``Tuning.apply`` did: ``values`` applied (key -> value), ``unused`` keys whose group
    is not running here."""
    values: dict[str, Any] = field(default_factory=dict)
    unused: list[str] = field(default_factory=list)


class Tuning:
    """The settings of one run, by key; see the module docstring.

    ``roots`` returns the objects to search (called on every use: the app and the runner's
    stages). ``baseline()`` records the values the run starts with; ``changed()`` compares
    with them.
    """

    def __init__(self, roots: Callable[[], Iterable[Any]]) -> None:
        self._roots = roots
        self._lock = threading.Lock()
        self._baseline: dict[str, Any] = {}
        self._applied: set[str] = set()
        #: settings this run keeps at one value: ``{key: (value, why)}`` (see the module docstring)
        self.fixed: dict[str, tuple[Any, str]] = {}

    def tunables(self) -> list[Tunable]:
        return find_tunables(self._roots())

    def by_section(self) -> dict[str, list[Tunable]]:
        out: dict[str, list[Tunable]] = {}
        for t in self.tunables():
            out.setdefault(type(t).SETTINGS.section, []).append(t)
        return out

    def sections(self) -> list[str]:
        return sorted(self.by_section())

    def settings(self) -> dict[str, Any]:
        """``{key: value}`` for every running group (the first object of a section speaks)."""
        out: dict[str, Any] = {}
        for section, objs in sorted(self.by_section().items()):
            for name, value in objs[0].settings().items():
                out[f"{section}.{name}"] = value
        return out

    def learned(self) -> dict[str, Any]:
        """``{key: value}`` of what the running stages learned (the first object of a section speaks)."""
        return self._by_key(lambda t: t.learned())

    def in_use(self) -> dict[str, Any]:
        """``{key: value or "learning"}`` for the settings left ``None`` to be learned."""
        return self._by_key(lambda t: t.in_use())

    def _by_key(self, read: Callable[[Tunable], Mapping[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for t in self.tunables():
            section = type(t).SETTINGS.section
            for name, value in read(t).items():
                out.setdefault(f"{section}.{name}", value)
        return out

    def baseline(self) -> dict[str, Any]:
        """Remember the current values as the run's starting point (and forget what was
        applied); returns them."""
        self._baseline = self.settings()
        self._applied = set()
        return dict(self._baseline)

    def changed(self) -> dict[str, Any]:
        """The settings applied through this table since the baseline (options, keys, OSC...),
        that still differ from it, at their current values. What the program did by itself
        (a click that starts a new tracker) is state, not a setting, and is not listed."""
        current = self.settings()
        return {k: current[k] for k in sorted(self._applied)
                if k in current and (k not in self._baseline or self._baseline[k] != current[k])}

    def apply(self, values: Mapping[str, Any]) -> Applied:
        """Check every value (native values; see ``parse``) against the table and the running
        objects, then queue them all for the next frame or block. On any error nothing is
        applied. Keys of groups that are not running are returned in ``unused``."""
        result = Applied()
        per_section: dict[str, dict[str, Any]] = {}
        for key, value in values.items():
            s = lookup(key)
            checked = per_section.setdefault(s.section, {})[s.name] = s.check(value)
            refused = self.refusal(s.key, checked)
            if refused is not None:
                raise ConfigError(refused)
        with self._lock:
            live = self.by_section()
            plan: list[tuple[Tunable, dict[str, Any]]] = []
            for section, vals in per_section.items():
                objs = live.get(section)
                if not objs:
                    result.unused += [f"{section}.{n}" for n in vals]
                    continue
                for obj in objs:
                    plan.append((obj, obj.check_settings(vals)))
            for obj, vals in plan:
                obj.apply(**vals)
                section = type(obj).SETTINGS.section
                result.values.update({f"{section}.{n}": v for n, v in vals.items()})
            self._applied.update(result.values)
        return result

    def superseded(self) -> int:
        """Values of the running objects replaced by a later one before they applied."""
        return sum(t.settings_superseded for t in self.tunables())

    def refusal(self, key: str, value: Any) -> str | None:
        """Why ``value`` (checked, native) cannot be applied to ``key`` in this run (it is
        ``fixed`` at another value), or ``None``."""
        if key not in self.fixed or self.fixed[key][0] == value:
            return None
        kept, why = self.fixed[key]
        return f"`{key}` stays {kept!r} in this run: {why}"

    def apply_now(self, values: Mapping[str, Any]) -> Applied:
        """``apply`` and take effect at once (the loop's own thread, between items). Values of a
        group that a value itself brings in (``motion.method=background`` and the ``background``
        settings) apply once it exists."""
        done = Applied(unused=list(values))
        while done.unused:
            step = self.apply({k: values[k] for k in done.unused})
            for t in self.tunables():
                if t._pending:
                    t._apply_pending_now()
            done.values.update(step.values)
            if len(step.unused) == len(done.unused):
                break
            done.unused = step.unused
        return done


def parse_values(texts: Mapping[str, str]) -> dict[str, Any]:
    """``{key: text}`` (``--set``) -> ``{key: value}`` through each setting's parser."""
    return {key: lookup(key).parse(text) for key, text in texts.items()}


def check_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """``{key: native value}`` checked against the table (no live objects needed)."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        split_key(key)
        out[key] = lookup(key).check(value)
    return out

