"""The one reader of Torch-dialect value tensor types (``!torch.vtensor<[2,?],f32>``) from
their text, shared by the ``ipu`` dialect's verifiers and the compiler's Torch-IR helpers
(the Python bindings expose no accessors for these types)."""

from __future__ import annotations

import re

_VTENSOR = re.compile(r"^!torch\.vtensor<\[([^\]]*)\],([a-z0-9]+|complex<[a-z0-9]+>)>$")

DYNAMIC = -1  # a dim written ``?``


def vtensor_shape_dtype(type_: object) -> tuple[list[int], str] | None:
    """([dims], element type text) of a ranked ``!torch.vtensor``, dims -1 where dynamic;
    None for any other type (builtin tensors, unranked or non-tensor types)."""
    match = _VTENSOR.match(str(type_))
    if match is None:
        return None
    dims_text, dtype = match.groups()
    if not dims_text.strip():
        return [], dtype
    return [DYNAMIC if d.strip() in ("?", "") else int(d) for d in dims_text.split(",")], dtype
