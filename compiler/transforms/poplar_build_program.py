"""poplar-build-program: wraps a lowered function into a ``poplar.graph`` with its control program.

Input: ``func.func @main`` over builtin tensors (after ``convert-torch-to-poplar``) whose
arguments carry ``ipu.name`` / ``ipu.kind`` attributes (weights, buffers, constants,
then inputs). Output: one ``poplar.graph`` holding a variable per argument, a host
stream per input and output, a ``poplar.function @step`` with the model body, and the
``main`` sequence: the device-iteration loop and the output mode's host copies.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects._base import build

from ..pass_base import Diagnostics, ModulePass

ARG_NAME = "ipu.name"
ARG_KIND = "ipu.kind"
OUTPUT_MODES = ("all", "final", "sum", "every_n")
_KINDS = {"parameter": "weight", "buffer": "buffer", "constant": "buffer", "input": "input",
          "hyper": "scalar", "optimizer_state": "optimizer_state"}
# Result roles (``ipu.kind`` in res_attrs) that write a variable instead of going to the host.
_WRITES = ("weight_update", "buffer_update", "state_update")


def _i64(value: int) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))


def _str(value: str) -> ir.StringAttr:
    return ir.StringAttr.get(value)


def input_variable(name: str) -> str:
    return f"input.{name}"


def input_stream(name: str) -> str:
    return f"host.input.{name}"


def output_stream(index: int) -> str:
    return f"host.output.{index}"


@dataclasses.dataclass(frozen=True)
class BuildProgram(ModulePass):
    """Build the poplar.graph and its main program (device loop, host streams, output mode).

    Output modes (SEMANTICS "Outputs"): ``all`` streams every iteration's outputs,
    ``every_n`` those of iterations n-1, 2n-1, ... (``return-period`` n), ``final`` the
    last iteration's, ``sum`` their sum.

    Preconditions: exactly one ``func.func`` whose body holds only poplar ops and a
    ``func.return``; every argument has ``ipu.name`` and ``ipu.kind``. Results whose
    ``ipu.kind`` (in ``res_attrs``) is ``weight_update``, ``buffer_update`` or
    ``state_update`` are copied into the variable ``ipu.name`` at the end of each step;
    the other results go to the host.

    Arguments:
      device-iterations: iterations of the device loop per host call (>= 1).
      output-mode: all | final | sum | every_n.
      return-period: n for every_n (must divide device-iterations).
      replication-factor: replicas of the graph (>= 1).
      num-ipus: IPUs of one replica (>= 1).
      tiles-per-ipu: tiles of the target's IPUs (>= 1).
    """

    name: ClassVar[str] = "poplar-build-program"
    device_iterations: int = 1
    output_mode: str = "all"
    return_period: int = 1
    replication_factor: int = 1
    num_ipus: int = 1
    tiles_per_ipu: int = 1472

    def _check_options(self, module: ir.Operation, diag: Diagnostics) -> bool:
        problems = []
        if self.device_iterations < 1:
            problems.append(f"device-iterations must be >= 1, got {self.device_iterations}")
        if self.output_mode not in OUTPUT_MODES:
            problems.append(f"output-mode must be one of {', '.join(OUTPUT_MODES)}, got '{self.output_mode}'")
        if self.output_mode == "every_n" and (self.return_period < 1 or self.device_iterations % self.return_period):
            problems.append(f"return-period {self.return_period} must be >= 1 and divide device-iterations {self.device_iterations}")
        for problem in problems:
            diag.error(module, f"poplar-build-program: {problem}")
        return not problems

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        if not self._check_options(module, diag):
            return
        top = module.regions[0].blocks[0]
        funcs = [op.operation for op in top.operations if op.operation.name == "func.func"]
        if len(funcs) != 1:
            diag.error(module, f"poplar-build-program expects exactly one func.func, found {len(funcs)}")
            return
        func = funcs[0]
        body = func.regions[0].blocks[0]
        args = list(body.arguments)
        arg_attrs = list(func.attributes["arg_attrs"]) if "arg_attrs" in func.attributes else []
        infos = []
        for i in range(len(args)):
            attrs = ir.DictAttr(arg_attrs[i]) if i < len(arg_attrs) else None
            if attrs is None or ARG_NAME not in attrs or ARG_KIND not in attrs:
                diag.error(func, f"argument #{i} has no '{ARG_NAME}' / '{ARG_KIND}' attributes (set by the frontend)")
                return
            kind = ir.StringAttr(attrs[ARG_KIND]).value
            if kind not in _KINDS:
                diag.error(func, f"argument #{i} has unknown kind '{kind}' (expected one of {', '.join(_KINDS)})")
                return
            infos.append((ir.StringAttr(attrs[ARG_NAME]).value, kind))
        ops = list(body.operations)
        terminator = ops[-1].operation
        for op in ops[:-1]:
            name = op.operation.name
            if not name.startswith("poplar."):
                diag.error(op, f"'{name}' is not a poplar op; run convert-torch-to-poplar first")
        if diag.failed:
            return
        all_results = list(terminator.operands)
        res_attrs = list(func.attributes["res_attrs"]) if "res_attrs" in func.attributes else []
        writes: list[tuple[str, ir.Value]] = []  # (variable name, new value)
        results = []
        for index, value in enumerate(all_results):
            role = ir.DictAttr(res_attrs[index]) if index < len(res_attrs) else None
            kind = ir.StringAttr(role[ARG_KIND]).value if role is not None and ARG_KIND in role else "output"
            if kind in _WRITES:
                writes.append((ir.StringAttr(role[ARG_NAME]).value, value))
            else:
                results.append(value)
        known = {name for name, _ in infos}
        for name, _ in writes:
            if name not in known:
                diag.error(func, f"a result updates '{name}', which is not an argument of the function")
        if diag.failed:
            return

        with func.location, ir.InsertionPoint(func):
            graph = build(pd.GraphOp, _i64(self.num_ipus), _i64(self.replication_factor), _i64(self.tiles_per_ipu))
        graph_block = graph.operation.regions[0].blocks.append()
        loc = func.location
        with loc, ir.InsertionPoint(graph_block):
            variables = []
            for (name, kind), arg in zip(infos, args, strict=True):
                variable_name = input_variable(name) if kind == "input" else name
                variables.append(build(pd.VariableOp, _str(variable_name), _str(_KINDS[kind]), _i64(0), ir.DenseI64ArrayAttr.get([]), arg.type).result)
                if kind == "input":
                    build(pd.HostStreamOp, _str(input_stream(name)), _str("host_to_device"), ir.TypeAttr.get(arg.type))
            anchors = []
            for index, value in enumerate(results):
                build(pd.HostStreamOp, _str(output_stream(index)), _str("device_to_host"), ir.TypeAttr.get(value.type))
                anchors.append(build(pd.VariableOp, _str(f"anchor.{index}"), _str("output"), _i64(0), ir.DenseI64ArrayAttr.get([]), value.type).result)
            sums = []
            if self.output_mode == "sum":
                for index, value in enumerate(results):
                    sums.append(build(pd.VariableOp, _str(f"sum.{index}"), _str("output"), _i64(0), ir.DenseI64ArrayAttr.get([]), value.type).result)
            step = build(pd.FunctionOp, _str("step"))
        step_block = step.operation.regions[0].blocks.append()

        # The step: read this iteration's inputs, compute, write results to the anchors.
        with loc, ir.InsertionPoint(step_block):
            last = build(pd.SyncOp, _str("internal"))  # a compute set boundary after the input copies
            for (name, kind), variable in zip(infos, variables, strict=True):
                if kind == "input":
                    copy = build(pd.StreamCopyOp, variable, _str(input_stream(name)))
                    copy.operation.move_before(last.operation)
        last = last.operation
        for op in ops[:-1]:
            op.operation.move_after(last)
            last = op.operation
        for arg, variable in zip(args, variables, strict=True):
            arg.replace_all_uses_with(variable)
        by_name = {name: variable for (name, _), variable in zip(infos, variables, strict=True)}
        with terminator.location, ir.InsertionPoint(step_block):
            for value, anchor in zip(results, anchors, strict=True):
                source = value
                if isinstance(value, ir.BlockArgument):  # returning an argument unchanged
                    source = variables[value.arg_number]
                build(pd.CopyOp, source, anchor)
            # Updated weights, buffers and optimizer state are written back to their variables.
            for name, value in writes:
                source = variables[value.arg_number] if isinstance(value, ir.BlockArgument) else value
                if source != by_name[name]:
                    build(pd.CopyOp, source, by_name[name])

        with loc, ir.InsertionPoint(graph_block):
            main = build(pd.SequenceOp, _str("main"))
        self._build_main(main.operation.regions[0].blocks.append(), loc, results, anchors, sums)
        func.erase()

    def _stream_out(self, values: list[ir.Value]) -> None:
        for index, value in enumerate(values):
            build(pd.StreamCopyOp, value, _str(output_stream(index)))

    def _build_main(self, block: ir.Block, loc: ir.Location, results: list[ir.Value], anchors: list[ir.Value], sums: list[ir.Value]) -> None:
        call = lambda: build(pd.CallOp, _str("step"))  # noqa: E731 - tiny local builder
        with loc, ir.InsertionPoint(block):
            if self.output_mode == "sum":
                for total in sums:
                    zero = ir.DenseElementsAttr.get_splat(total.type, _zero(ir.RankedTensorType(total.type).element_type))
                    build(pd.CopyOp, build(pd.ConstantOp, zero, _i64(0), total.type).result, total)
            if self.output_mode == "every_n":
                outer = build(pd.RepeatOp, _i64(self.device_iterations // self.return_period))
                with ir.InsertionPoint(outer.operation.regions[0].blocks.append()):
                    if self.return_period > 1:
                        inner = build(pd.RepeatOp, _i64(self.return_period - 1))
                        with ir.InsertionPoint(inner.operation.regions[0].blocks.append()):
                            call()
                    call()
                    self._stream_out(anchors)
                return
            loop = build(pd.RepeatOp, _i64(self.device_iterations))
            with ir.InsertionPoint(loop.operation.regions[0].blocks.append()):
                call()
                if self.output_mode == "all":
                    self._stream_out(anchors)
                elif self.output_mode == "sum":
                    for total, anchor in zip(sums, anchors, strict=True):
                        build(pd.ScaledAddToOp, total, anchor, ir.FloatAttr.get(ir.F64Type.get(), 1.0))
            if self.output_mode == "final":
                self._stream_out(anchors)
            elif self.output_mode == "sum":
                self._stream_out(sums)


def _zero(element: ir.Type) -> ir.Attribute:
    if isinstance(element, ir.IntegerType):
        return ir.IntegerAttr.get(element, 0)
    return ir.FloatAttr.get(element, 0.0)
