"""Passes that erase ops never use another Python handle of an erased op.

In this torch-mlir build two Python handles of one op are separate objects, and erasing
the op through one leaves the other valid-looking: its next use reads freed memory (a
segfault, or a silent wrong answer). Each test runs its pipeline in a child process with
glibc's freed memory poisoned (``helpers.run_poisoned``), where such a read crashes on
every run, and checks what the compiled program computes against eager PyTorch.
"""

from __future__ import annotations

import pytest

from helpers import run_poisoned

# Imported IR of ``poptorch.cond(x.mean() > 0, lambda t: t * 2.0, [x], lambda t: t + 1.0, [x])``:
# both branches read the same inputs, so their begin markers read equal lists.
_COND_SAME_INPUTS = """
func.func @main(%arg0: !torch.vtensor<[2,3],f32> {ipu.role = #ipu.role<"input", "x">}) -> (!torch.vtensor<[2,3],f32> {ipu.role = #ipu.role<"output", "output.0">}) {
  %none = torch.constant.none
  %0 = torch.aten.mean %arg0, %none : !torch.vtensor<[2,3],f32>, !torch.none -> !torch.vtensor<[],f32>
  %int0 = torch.constant.int 0
  %1 = torch.aten.gt.Scalar %0, %int0 : !torch.vtensor<[],f32>, !torch.int -> !torch.vtensor<[],i1>
  %2 = torch.prim.ListConstruct %arg0 : (!torch.vtensor<[2,3],f32>) -> !torch.list<vtensor>
  %int1 = torch.constant.int 1
  %3 = torch.operator "torch.poptorch.cond_begin"(%2, %int0, %int0) : (!torch.list<vtensor>, !torch.int, !torch.int) -> !torch.list<vtensor>
  %4 = torch.prim.ListUnpack %3 : !torch.list<vtensor> -> !torch.vtensor<[2,3],f32>
  %float2 = torch.constant.float 2.000000e+00
  %5 = torch.aten.mul.Scalar %4, %float2 : !torch.vtensor<[2,3],f32>, !torch.float -> !torch.vtensor<[2,3],f32>
  %6 = torch.prim.ListConstruct %arg0 : (!torch.vtensor<[2,3],f32>) -> !torch.list<vtensor>
  %7 = torch.operator "torch.poptorch.cond_begin"(%6, %int0, %int1) : (!torch.list<vtensor>, !torch.int, !torch.int) -> !torch.list<vtensor>
  %8 = torch.prim.ListUnpack %7 : !torch.list<vtensor> -> !torch.vtensor<[2,3],f32>
  %float1 = torch.constant.float 1.000000e+00
  %9 = torch.aten.add.Scalar %8, %float1, %int1 : !torch.vtensor<[2,3],f32>, !torch.float, !torch.int -> !torch.vtensor<[2,3],f32>
  %10 = torch.prim.ListConstruct %5 : (!torch.vtensor<[2,3],f32>) -> !torch.list<vtensor>
  %11 = torch.prim.ListConstruct %9 : (!torch.vtensor<[2,3],f32>) -> !torch.list<vtensor>
  %12 = torch.operator "torch.poptorch.cond_end"(%1, %10, %11, %int0) : (!torch.vtensor<[],i1>, !torch.list<vtensor>, !torch.list<vtensor>, !torch.int) -> !torch.list<vtensor>
  %13 = torch.prim.ListUnpack %12 : !torch.list<vtensor> -> !torch.vtensor<[2,3],f32>
  return %13 : !torch.vtensor<[2,3],f32>
}
"""

# ``poptorch.cond(x.mean() > 0, lambda t: y, [x], lambda t: y, [x])[0] + 1.0`` with
# ``y = x * 3.0``: both branches return the same value, so the end marker reads equal
# lists (the export dropped the begin markers, which nothing read).
_COND_SAME_OUTPUTS = """
func.func @main(%arg0: !torch.vtensor<[2,3],f32> {ipu.role = #ipu.role<"input", "x">}) -> (!torch.vtensor<[2,3],f32> {ipu.role = #ipu.role<"output", "output.0">}) {
  %float3 = torch.constant.float 3.000000e+00
  %0 = torch.aten.mul.Scalar %arg0, %float3 : !torch.vtensor<[2,3],f32>, !torch.float -> !torch.vtensor<[2,3],f32>
  %none = torch.constant.none
  %1 = torch.aten.mean %arg0, %none : !torch.vtensor<[2,3],f32>, !torch.none -> !torch.vtensor<[],f32>
  %int0 = torch.constant.int 0
  %2 = torch.aten.gt.Scalar %1, %int0 : !torch.vtensor<[],f32>, !torch.int -> !torch.vtensor<[],i1>
  %3 = torch.prim.ListConstruct %0 : (!torch.vtensor<[2,3],f32>) -> !torch.list<vtensor>
  %4 = torch.prim.ListConstruct %0 : (!torch.vtensor<[2,3],f32>) -> !torch.list<vtensor>
  %5 = torch.operator "torch.poptorch.cond_end"(%2, %3, %4, %int0) : (!torch.vtensor<[],i1>, !torch.list<vtensor>, !torch.list<vtensor>, !torch.int) -> !torch.list<vtensor>
  %6 = torch.prim.ListUnpack %5 : !torch.list<vtensor> -> !torch.vtensor<[2,3],f32>
  %float1 = torch.constant.float 1.000000e+00
  %int1 = torch.constant.int 1
  %7 = torch.aten.add.Scalar %6, %float1, %int1 : !torch.vtensor<[2,3],f32>, !torch.float, !torch.int -> !torch.vtensor<[2,3],f32>
  return %7 : !torch.vtensor<[2,3],f32>
}
"""

# Runs cse (which merges the equal lists into one op) before the inference pipeline, then
# the compiled program on inputs that take each branch, against the eager computation.
_COMPILE_AND_RUN = """
import torch
from torch_mlir import ir
from ipu_mlir.compiler.pass_base import MlirPass
from ipu_mlir.compiler.pass_pipeline import run_pipeline
from ipu_mlir.compiler.pipelines import CompileOptions, compile_pipeline
from ipu_mlir.dialects import make_context
from ipu_mlir.dialects.poplar import interface_of
from ipu_mlir.dialects.poplar.program_order import graphs_of
from ipu_mlir.runtime.interpreter import DeviceStore, Program

module = ir.Module.parse({ir!r}, make_context())
run_pipeline(module, [MlirPass("cse"), *compile_pipeline(CompileOptions(), training=False)], name="erase_safety")
graph = next(graphs_of(module.operation))
interface = interface_of(graph)
program = Program(graph)
for x in (torch.arange(6.0).reshape(2, 3) - 2.0, torch.arange(6.0).reshape(2, 3) - 4.0):
    got = program.run({{0: DeviceStore(0)}}, {{interface.input_stream("x"): [x]}})[interface.output_stream(0)][0]
    want = {eager}
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
print("ok")
"""


@pytest.mark.parametrize(("ir", "eager"), [
    (_COND_SAME_INPUTS, "x * 2.0 if x.mean() > 0 else x + 1.0"),
    (_COND_SAME_OUTPUTS, "x * 3.0 + 1.0"),
], ids=["same-inputs", "same-outputs"])
def test_outlining_a_cond_whose_markers_share_a_list(ir: str, eager: str) -> None:
    """ipu-raise-custom-ops erases a control-flow marker's lists once nothing reads them;
    after cse both markers of a cond may read one list op, which it once erased through
    one handle and then read through the other (a segfault)."""
    done = run_poisoned(_COMPILE_AND_RUN.format(ir=ir, eager=eager))
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")
