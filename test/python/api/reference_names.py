"""The public names of the PopTorch API reference (seed 003), parsed from its text.

A name is a definition heading (``class poptorch.X(...)`` or ``poptorch.f(...)``), a member listed
under a class heading (``method(...)``, ``property name: type``; ``__init__`` aside), or a dotted
``poptorch.X.Y`` mention in the text (enum members such as ``poptorch.OutputMode.All``).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

SEEDS = Path("/work/shared/seeds")
_HEADING = re.compile(r"^(class )?(poptorch(?:\.[A-Za-z_]\w*)+)(\(.*\))?$")
_MEMBER = re.compile(r"^(?:([A-Za-z_]\w*)\(.*\)|property ([A-Za-z_]\w*): .*)$")
_MENTION = re.compile(r"poptorch\.[A-Za-z_][\w.]*")
_NOT_MEMBERS = {"__init__"}


def reference_path() -> Path | None:
    found = sorted(SEEDS.glob("003_*.txt"))
    return found[0] if found else None


def reference_names(text: str) -> list[str]:
    names: set[str] = set()
    owner = None
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            if heading.group(1) or heading.group(3):  # a bare "poptorch.Options" is a return type
                names.add(heading.group(2))
                owner = heading.group(2) if heading.group(1) else None
            continue
        member = _MEMBER.match(line)
        name = member and (member.group(1) or member.group(2))
        if name and owner and name not in _NOT_MEMBERS:
            names.add(f"{owner}.{name}")
        names.update(m.rstrip(".") for m in _MENTION.findall(line))
    return sorted(names)


def resolves(name: str) -> bool:
    """Whether ``poptorch.a.b.c`` names something: an attribute chain from a poptorch module."""
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for part in parts[split:]:
            if not hasattr(target, part):
                return False
            target = getattr(target, part)
        return True
    return False
