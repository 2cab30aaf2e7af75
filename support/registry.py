"""A name -> entry table that refuses a second entry under the same name.

The lowering patterns of ``convert-torch-to-poplar`` (op name -> pattern) and the IPU
Model's kernels (op name -> kernel factory) are both such tables; each op family file
fills one in its ``populate(...)`` function or with the ``register`` decorator.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class DuplicateRegistration(KeyError):
    """A name was registered twice in one :class:`Registry`."""


class Registry(Generic[T]):
    """Entries by name; registering a name twice raises :class:`DuplicateRegistration`.

    ``what`` names the entries in messages ("lowering", "kernel").
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self._entries: dict[str, T] = {}
        self._origin: dict[str, str] = {}

    def add(self, name: str, entry: T) -> None:
        if name in self._entries:
            raise DuplicateRegistration(
                f"{self.what} for '{name}' is registered twice: first by {self._origin[name]}, "
                f"then by {_describe(entry)}; remove one of them"
            )
        self._entries[name] = entry
        self._origin[name] = _describe(entry)

    def register(self, *names: str) -> Callable[[T], T]:
        """Decorator: register the decorated object under every name in ``names``."""

        def decorate(entry: T) -> T:
            for name in names:
                self.add(name, entry)
            return entry

        return decorate

    def get(self, name: str) -> T | None:
        return self._entries.get(name)

    def __getitem__(self, name: str) -> T:
        return self._entries[name]

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def names(self) -> list[str]:
        return sorted(self._entries)


def _describe(entry: object) -> str:
    module = getattr(entry, "__module__", None)
    name = getattr(entry, "__qualname__", None) or type(entry).__name__
    return f"{module}.{name}" if module else str(name)
