"""How the importer writes tensor literals: as ``DenseElementsAttr``.

torch-mlir's default is a ``DenseResourceElementsAttr`` (a named blob), whose data the
MLIR Python bindings cannot read back and whose element type cannot be changed, so
``convert-torch-to-poplar`` could neither give it a builtin element type nor the IPU
Model read it. Literals come from graph constants the importer inlines, such as the index
tensors of its ``as_strided`` rewrite (``x.as_strided(...)`` imports as ``aten.index``
with constant indices)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch_mlir import ir
from torch_mlir.extras.fx_importer import TORCH_DTYPE_TO_MLIR_TYPE, FxImporterHooks


class DenseLiterals(FxImporterHooks):
    """Import hooks that turn every tensor literal into a ``torch.vtensor.literal`` of a
    ``DenseElementsAttr`` (the importer's own path for one-element tensors)."""

    def resolve_literal(self, gni: Any, literal: Any, info: Any) -> ir.Value | None:
        if not isinstance(literal, torch.Tensor) or literal.dtype not in TORCH_DTYPE_TO_MLIR_TYPE:
            return None
        if literal.dtype == torch.bfloat16:
            return None  # numpy has no bfloat16: keep torch-mlir's path
        vtensor_type = gni._cc.tensor_to_vtensor_type(literal)
        values = np.array(literal.tolist(), dtype=torch.empty((), dtype=literal.dtype).numpy().dtype).reshape(tuple(literal.shape))
        attr = ir.DenseElementsAttr.get(values, type=TORCH_DTYPE_TO_MLIR_TYPE[literal.dtype](), shape=list(literal.shape))
        return ir.Operation.create("torch.vtensor.literal", results=[vtensor_type], attributes={"value": attr}).result
