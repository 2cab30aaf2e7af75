"""The base of every dialect enumeration (``ipu``, ``pipeline``, ``poplar``): the IR spells
a member by its value, and every reader (verifier, pass, runtime) parses it with
:meth:`DialectEnum.parse`, whose error lists the valid values. Pure Python."""

import enum
from typing import Self


class DialectEnum(enum.StrEnum):
    """An enumeration of IR spellings (a member compares equal to its spelling)."""

    @classmethod
    def parse(cls, text: object, what: str) -> Self:
        """The member spelled ``text``, else ValueError: ``<what> must be one of: a, b; got "x"``."""
        try:
            return cls(text)
        except ValueError:
            raise ValueError(f'{what} must be one of: {cls.choices()}; got "{text}"') from None

    @classmethod
    def choices(cls) -> str:
        return ", ".join(member.value for member in cls)
