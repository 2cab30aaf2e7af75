"""The lowering pattern tables: one per conversion pass, filled by op family, duplicates refused."""

from __future__ import annotations

import pytest
from torch_mlir import ir

from ipu_mlir.compiler.lowering import IPU_TRAINING_OPS, Pattern
from ipu_mlir.compiler.transforms import convert_ipu_to_poplar
from ipu_mlir.compiler.transforms.convert_torch_to_poplar import (
    FAMILIES,
    ipu_ops,
    lowering_patterns,
    normalization,
)
from ipu_mlir.support import ir_build
from ipu_mlir.support.registry import DuplicateRegistration, Registry

# Before the split into families, the one table registered 226 names, one of them twice
# (torch.aten.native_layer_norm, whose first lowering was dead). Adding a lowering adds here.
LOWERED_OP_NAMES = 483  # issue 15 added the planning model ops, the control-flow value ops (ipu.carried, ...) and the user-code ops (custom_op, CPU, ctc); issue 14 ipu.replica_shard / replica_unshard


def test_registering_a_name_twice_raises_naming_both_patterns() -> None:
    patterns: Registry[Pattern] = Registry("lowering")
    normalization.populate(patterns)
    with pytest.raises(DuplicateRegistration, match=r"lowering for 'torch.aten.native_layer_norm' is registered twice: "
                       r"first by .*normalization\.lower_native_layer_norm, then by .*lower_layer_norm; remove one of them"):
        patterns.add("torch.aten.native_layer_norm", normalization.lower_layer_norm)


@pytest.mark.parametrize("family", FAMILIES, ids=lambda family: family.__name__.rsplit(".", 1)[-1])
def test_every_family_registers_its_patterns(family) -> None:  # noqa: ANN001
    patterns: Registry[Pattern] = Registry("lowering")
    family.populate(patterns)
    assert len(patterns) > 0
    assert all(getattr(patterns[name], "__module__", None) == family.__name__ for name in patterns)


def test_the_families_together_lower_every_op_once() -> None:
    patterns = lowering_patterns()  # would raise DuplicateRegistration if two families overlapped
    assert len(patterns) == LOWERED_OP_NAMES
    assert sum(_count(family) for family in FAMILIES) == LOWERED_OP_NAMES


def test_the_dead_layer_norm_lowering_is_gone() -> None:
    """native_layer_norm keeps the lowering that won before (mean and rstd results, NormTrainingOp)."""
    patterns = lowering_patterns()
    assert patterns["torch.aten.native_layer_norm"] is normalization.lower_native_layer_norm
    assert patterns["torch.aten.layer_norm"] is normalization.lower_layer_norm


def test_training_ops_are_kept_by_one_pass_and_lowered_by_the_other() -> None:
    kept = lowering_patterns()
    lowered = convert_ipu_to_poplar.lowering_patterns()
    assert sorted(lowered) == sorted(IPU_TRAINING_OPS)
    assert all(kept[name] is ipu_ops.keep_for_ipu_conversion for name in IPU_TRAINING_OPS)


def test_ir_build_gives_the_builtin_attributes_and_types() -> None:
    with ir.Context(), ir.Location.unknown():
        assert str(ir_build.i64(-3)) == "-3 : i64"
        assert str(ir_build.f64(0.5)) == "5.000000e-01 : f64"
        assert str(ir_build.boolean(False)) == "false"
        assert str(ir_build.string("relu")) == '"relu"'
        assert str(ir_build.i64_array([0, 2, 1])) == "array<i64: 0, 2, 1>"
        assert str(ir_build.tensor_type([2, 3], ir.F32Type.get())) == "tensor<2x3xf32>"
        assert str(ir_build.tensor_type([], ir.IntegerType.get_signless(1))) == "tensor<i1>"


def _count(family) -> int:  # noqa: ANN001
    patterns: Registry[Pattern] = Registry("lowering")
    family.populate(patterns)
    return len(patterns)
