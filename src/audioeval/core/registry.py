"""One registry type for every set of named things: scorers, steps, metrics, tasks, codecs,
baselines, MCQ benchmarks, listings.

Entries keep their registration order. A name is registered once (registering it again is
an error, never a silent replacement). Looking up an unknown name raises `InputError` with
"did you mean …?" and the known names, in one of the two wordings of `core/suggest.py`:
command-line names (the default) or names read from a spec file (`spec_names=True`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Generic, TypeVar

from audioeval.core.errors import InputError
from audioeval.core.suggest import unknown_name, unknown_spec_name

Item = TypeVar("Item")


class Registry(Generic[Item]):
    """Named entries of one kind (`kind` words the errors: "unknown scorer 'x'")."""

    def __init__(
        self,
        kind: str,
        entries: Iterable[tuple[str, Item]] = (),
        *,
        spec_names: bool = False,
        also_known: Sequence[str] = (),
    ) -> None:
        self.kind = kind
        self.spec_names = spec_names
        self.also_known = tuple(also_known)
        """Names accepted by another way (e.g. "mean:<stats key>"), listed in errors."""
        self._entries: dict[str, Item] = {}
        for name, item in entries:
            self.register(name, item)

    def register(self, name: str, item: Item) -> Item:
        """Add an entry; ValueError when the name is taken."""
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self._entries[name] = item
        return item

    def unregister(self, name: str) -> None:
        """Remove an entry (KeyError when there is none)."""
        del self._entries[name]

    def get(self, name: str, *, where: str | None = None, field: str | None = None) -> Item:
        """The entry named `name`; InputError naming `where` and `field` when there is none."""
        item = self._entries.get(name)
        if item is None:
            raise self.unknown(name, where=where, field=field)
        return item

    def find(self, name: str) -> Item | None:
        """The entry named `name`, or None."""
        return self._entries.get(name)

    def unknown(self, name: object, *, where: str | None = None, field: str | None = None) -> InputError:
        """The error for a name no entry has."""
        known = [*self._entries, *self.also_known]
        if self.spec_names:
            message = unknown_spec_name(self.kind, name, known)
        else:
            message = unknown_name(self.kind, str(name), known)
        return InputError(message, file=where or None, field=field)

    def names(self) -> list[str]:
        return list(self._entries)

    def items(self) -> list[tuple[str, Item]]:
        return list(self._entries.items())

    def values(self) -> list[Item]:
        return list(self._entries.values())

    def __getitem__(self, name: str) -> Item:
        return self._entries[name]

    def __delitem__(self, name: str) -> None:
        self.unregister(name)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {self.names()})"
