"""The kernel registry: one kernel per op name (a second registration raises), and every
compute op of the poplar dialect has one."""

from __future__ import annotations

import pytest
import torch

from ipu_mlir.dialects import poplar
from ipu_mlir.runtime.kernels import FAMILIES, KERNELS
from ipu_mlir.support.registry import DuplicateRegistration

# Ops the decoder runs itself: graph data, programs, and in-place writes of the program.
DECODED_BY_THE_PROGRAM = {
    "poplar.graph", "poplar.variable", "poplar.constant", "poplar.remote_buffer", "poplar.host_stream",
    "poplar.function", "poplar.program_sequence", "poplar.program_repeat", "poplar.program_copy",
    "poplar.program_stream_copy", "poplar.program_sync", "poplar.program_print_tensor", "poplar.program_call",
    "poplar.popops_scaled_add_to", "poplar.program_if", "poplar.program_remote_load", "poplar.program_remote_store",
}


def test_a_second_kernel_for_an_op_is_refused() -> None:
    first = KERNELS["poplar.popops_add"]
    with pytest.raises(DuplicateRegistration, match=r"kernel for 'poplar.popops_add' is registered twice: first by "
                                                    r"ipu_mlir\.runtime\.kernels\.elementwise\._binary, then by .*; remove one of them"):
        KERNELS.register("poplar.popops_add")(lambda op: torch.add)
    assert KERNELS["poplar.popops_add"] is first  # the first one stays


def test_every_compute_op_has_a_kernel() -> None:
    ops = {op.OPERATION_NAME for op in poplar.Poplar.operations}
    missing = sorted(ops - DECODED_BY_THE_PROGRAM - set(KERNELS))
    assert not missing, f"poplar ops without an IPU Model kernel: {missing}"
    assert set(KERNELS) <= ops


def test_each_family_registers_its_own_kernels() -> None:
    owners = {KERNELS[name].__module__.rsplit(".", 1)[-1] for name in KERNELS}
    assert owners == {family.__name__.rsplit(".", 1)[-1] for family in FAMILIES}
