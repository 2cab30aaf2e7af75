"""Fixtures of the IPU Model's unit tests: a poplar op built from its text in an MLIR
context with our dialects, and the kernel the runtime registered for it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from torch_mlir import ir

from ipu_mlir.dialects import make_context
from ipu_mlir.runtime.kernels import KERNELS


@pytest.fixture
def kernel_of() -> Iterator[Callable[[str, str], Any]]:
    """``kernel_of(arguments, op)``: the kernel of ``op`` (generic MLIR text reading the
    ``arguments`` of a function, e.g. ``"%a: tensor<3xf32>"``), built from the op after
    it was parsed and verified."""
    context = make_context()
    modules = []

    def build(arguments: str, op: str) -> Any:
        source = f"func.func @f({arguments}) {{\n  {op}\n  return\n}}"
        module = ir.Module.parse(source, context)
        modules.append(module)
        parsed = module.body.operations[0].regions[0].blocks[0].operations[0].operation
        return KERNELS[parsed.name](parsed)

    yield build
