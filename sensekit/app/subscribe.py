"""``App.on``, typed by event name: the handler of ``"pitch"`` gets a ``Pitch``.

``self.on("pitch", lambda e: self.sing(e.hz))`` is checked by mypy (``e`` is a ``Pitch``), and an
app's handler may take its event's own class (``def _on_clap(self, event: Clap)``). One overload
per event of ``sensekit.events``: the list of ``Dispatcher.on``, both being ``events.TypedOn``'s
(``tests/apps/test_subscribe.py`` keeps it complete and right); a name that is not a literal (a
loop over names, ``"*"``) takes a handler of any event class. At run time ``on`` only attaches
the handler to the host's dispatcher, which checks the name then and calls the handler with
events of that name only, i.e. of that class.
"""
from __future__ import annotations

from sensekit.events import Dispatcher, Handler, TypedOn

__all__ = ["Subscriber"]


class Subscriber(TypedOn):
    """The ``on`` of ``App``: subscribe a handler to an event name on the host's dispatcher
    (typed by event name: ``TypedOn``'s overloads, the dispatcher's own)."""

    def _dispatcher(self) -> Dispatcher:
        raise NotImplementedError

    def _attach(self, name: str, handler: Handler) -> Handler:
        """``on``: attach to the host's dispatcher (which checks the name now) and remember the
        name (``subscribed``)."""
        attached = self._dispatcher().on(name, handler)
        self.__dict__.setdefault("_subscribed_names", set()).add(name)
        return attached

    def subscribed(self) -> frozenset[str]:
        """The event names this app has attached a handler to with ``on`` (``"*"`` not counted)."""
        return frozenset(self.__dict__.get("_subscribed_names", ())) - {"*"}
