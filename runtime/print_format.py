"""The text of a ``poplar.program_print_tensor``: ``<title>: <values>`` laid out by the op's
``poplar.print_format`` (dialects/print_format.py), as Poplar's ``PrintTensorFmt`` does."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch


def format_tensor(title: str, tensor: torch.Tensor, layout: dict[str, Any]) -> str:
    values = tensor.detach().cpu()
    if values.dtype in (torch.bfloat16, torch.float16):
        values = values.float()  # numpy has no bfloat16; both print with the layout's digits
    array = values.numpy()
    digits, style = layout["digits"], layout["float_format"]
    formatter = None
    if style == "fixed":
        formatter = {"float_kind": lambda x: f"{x:.{digits}f}"}
    elif style == "scientific":
        formatter = {"float_kind": lambda x: f"{x:.{digits}e}"}
    elif style == "none":
        formatter = {"float_kind": lambda x: repr(float(x))}
    text = np.array2string(
        array, max_line_width=layout["max_line_width"], precision=digits, separator=layout["separator"],
        threshold=layout["summarise_threshold"], edgeitems=layout["edge_items"], formatter=formatter,
        floatmode="maxprec", prefix=f"{title}: ",
    )
    text = text.replace("[", layout["open_bracket"]).replace("]", layout["close_bracket"])
    return f"{title}: {text}"
