"""poplar-build-program: wraps a lowered function into a ``poplar.graph`` with its control program.

Input: ``func.func @main`` over builtin tensors (after ``convert-torch-to-poplar``) whose
arguments carry their ``#ipu.role`` (weights, buffers, constants, then inputs). Output:
one ``poplar.graph`` holding a variable per argument, a host stream per input and output,
a ``poplar.function @step`` with the model body, and the ``main`` sequence: the
device-iteration loop and the output mode's host copies. The graph's
``#poplar.interface`` names those streams and programs, and the variables the host
provides (with their argument's role kind, in argument order), once, for the host side.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.ipu import ARGUMENTS, MAIN_FUNC, RESULTS, ROLE_ATTR, UPDATE_FUNC, RoleKind, read_roles
from ipu_mlir.dialects.ipu_anchor import ANCHORED_STATE_ATTR, AnchorMode, anchored_state, result_output_modes
from ipu_mlir.dialects.pipeline import PHASES_ATTR, Plan, plan_of, set_plan
from ipu_mlir.dialects.pipeline_attrs import DATA_MOVES, IPU_ATTR, STAGE_ATTR
from ipu_mlir.dialects.poplar import OutputMode, StreamDirection, SyncKind, VariableKind
from ipu_mlir.dialects.poplar.planning import FP_EXCEPTIONS_ATTR, OVERLAP_ATTR, FloatingPointException
from ipu_mlir.support.ir_build import i64, string
from ipu_mlir.support.target import MK2

from ..device_control import expand_control_flow, first_control_flow
from ..main_program import HostValue, anchor_period_problem, build_main, state_anchor_problems
from ..pass_base import Diagnostics, ModulePass

# The poplar.variable kind of each argument role.
_KINDS = {RoleKind.PARAMETER: VariableKind.WEIGHT, RoleKind.BUFFER: VariableKind.BUFFER,
          RoleKind.CONSTANT: VariableKind.BUFFER, RoleKind.INPUT: VariableKind.INPUT, RoleKind.HYPER: VariableKind.SCALAR,
          RoleKind.OPTIMIZER_STATE: VariableKind.OPTIMIZER_STATE, RoleKind.ACCUMULATOR: VariableKind.ACCUMULATOR}
# Result roles that write a variable instead of going to the host.
_WRITES = (RoleKind.WEIGHT_UPDATE, RoleKind.BUFFER_UPDATE, RoleKind.STATE_UPDATE, RoleKind.ACCUMULATOR_UPDATE)
# The names this pass gives the programs and streams; the graph's #poplar.interface
# records them, and everything downstream reads them from there.
STEP_FUNCTION = "step"
UPDATE_FUNCTION = "update"


def _input_variable(name: str) -> str:
    return f"input.{name}"  # inputs share the graph's name space with the weights


def _input_stream(name: str) -> str:
    return f"host.input.{name}"


def _output_stream(index: int) -> str:
    return f"host.output.{index}"


def _anchor_stream(index: int) -> str:
    return f"host.anchor.{index}"


@dataclasses.dataclass(frozen=True)
class BuildProgram(ModulePass):
    """Build the poplar.graph and its main program (device loop, host streams, output mode).

    Output modes (SEMANTICS "Outputs"): ``all`` streams every iteration's outputs,
    ``every_n`` those of iterations n-1, 2n-1, ... (``return-period`` n), ``final`` the
    last iteration's, ``sum`` their sum.

    Preconditions: exactly one ``func.func`` whose body holds only poplar ops and a
    ``func.return``; every argument has an ``#ipu.role``. Results whose role is
    ``weight_update``, ``buffer_update``, ``state_update`` or ``accumulator_update`` are
    copied into the variable of the role's name at the end of each step; the other
    results go to the host: ``input_update`` results (a user input the model updated in
    place) after every step whatever the output mode, the others as the mode says.
    ``anchor`` results (``Options.anchorTensor``) go to the host under their own
    ``#ipu.output_mode``, each through a stream ``host.anchor.<k>`` listed in the graph's
    ``poplar.anchors`` (not among the interface's outputs). The module's
    ``ipu.anchored_state`` (``#ipu.state_anchor``) names state variables (weights, buffers,
    optimizer state, accumulators, hyper-parameters) to stream the same way, each sampled at
    the end of every step, after the update for the last step of an iteration; a name that
    is no such variable is an error. The ``every_n`` values of one program share one period
    (``compiler/main_program.py`` builds the main program).

    With gradient accumulation the module holds ``@main`` (one micro-batch: forward,
    backward, accumulation) and ``@update`` (the optimizer): each device iteration runs
    ``step`` G times, then ``update``.

    Arguments:
      device-iterations: iterations of the device loop per host call (>= 1).
      gradient-accumulation: micro-batches per optimizer update (G >= 1; needs @update).
      output-mode: all | final | sum | every_n.
      return-period: n for every_n (must divide device-iterations x gradient-accumulation, and
        divide gradient-accumulation or be a multiple of it).
      replication-factor: replicas of the graph (>= 1).
      num-ipus: IPUs of one replica (>= 1).
      tiles-per-ipu: tiles of the target's IPUs (>= 1).
      floating-point-exceptions: what the engine raises on (invalid, divide_by_zero,
        overflow): the graph's poplar.floating_point_exceptions (default: none).
    """

    name: ClassVar[str] = "poplar-build-program"
    device_iterations: int = 1
    gradient_accumulation: int = 1
    output_mode: str = "all"
    return_period: int = 1
    replication_factor: int = 1
    num_ipus: int = 1
    tiles_per_ipu: int = MK2.tiles_per_ipu
    floating_point_exceptions: tuple[str, ...] = ()

    def _check_options(self, module: ir.Operation, diag: Diagnostics) -> bool:
        problems = []
        if self.device_iterations < 1:
            problems.append(f"device-iterations must be >= 1, got {self.device_iterations}")
        if self.gradient_accumulation < 1:
            problems.append(f"gradient-accumulation must be >= 1, got {self.gradient_accumulation}")
        try:
            mode = OutputMode.parse(self.output_mode, "output-mode")
        except ValueError as error:
            problems.append(str(error))
            mode = None
        steps = self.device_iterations * self.gradient_accumulation
        if mode == OutputMode.EVERY_N:
            period, accumulation = self.return_period, self.gradient_accumulation
            if period < 1 or steps % period:
                problems.append(f"return-period {period} must be >= 1 and divide device-iterations x gradient-accumulation = {steps}")
            elif accumulation % period and period % accumulation:
                problems.append(
                    f"return-period {period} must divide gradient-accumulation {accumulation} or be a multiple of it"
                )
        for text in self.floating_point_exceptions:
            try:
                FloatingPointException.parse(text, "floating-point-exceptions entries")
            except ValueError as error:
                problems.append(str(error))
        for problem in problems:
            diag.error(module, f"poplar-build-program: {problem}")
        return not problems

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        if not self._check_options(module, diag):
            return
        top = module.regions[0].blocks[0]
        funcs = [op.operation for op in top.operations if op.operation.name == "func.func"]
        names = [ir.StringAttr(f.attributes["sym_name"]).value for f in funcs]
        if len(funcs) == 1:
            main, update = funcs[0], None
        elif sorted(names) == sorted([MAIN_FUNC, UPDATE_FUNC]):
            main, update = funcs[names.index(MAIN_FUNC)], funcs[names.index(UPDATE_FUNC)]
        else:
            diag.error(module, f"poplar-build-program expects one func.func, or @{MAIN_FUNC} and @{UPDATE_FUNC}; found {', '.join('@' + n for n in names) or 'none'}")
            return
        if update is None and self.gradient_accumulation > 1:
            diag.error(main, f"gradient-accumulation={self.gradient_accumulation} needs an @{UPDATE_FUNC} function "
                             "(run ipu-insert-training with the same gradient-accumulation first)")
            return
        parts = [self._read(main, diag)] + ([self._read(update, diag)] if update is not None else [])
        if diag.failed:
            return
        if update is not None and parts[1].outputs:
            diag.error(update, f"@{UPDATE_FUNC} may only update variables; {len(parts[1].outputs)} results have no variable role")
            return
        # One variable per name across the functions, in argument order (@main's, then
        # @update's others): the interface lists the host-provided ones in this order.
        variables_spec: dict[str, tuple[RoleKind, ir.Type]] = {}
        shards: dict[str, ir.Attribute] = {}  # replicated tensor sharding: argument name -> its poplar.replica_shard
        for part in parts:
            for name, attr in zip((name for name, _ in part.infos), _arg_attr(part.func, pd.REPLICA_SHARD_ATTR), strict=False):
                if attr is not None:
                    shards[name] = attr
            for (name, kind), arg in zip(part.infos, part.args, strict=True):
                known = variables_spec.get(name)
                if known is not None and known[1] != arg.type:
                    diag.error(part.func, f"argument '{name}' has type {arg.type} here but {known[1]} in another function")
                variables_spec.setdefault(name, (kind, arg.type))
            for name, _ in part.writes:
                if name not in variables_spec:
                    diag.error(part.func, f"a result updates '{name}', which is not an argument of the function")
        if diag.failed:
            return

        try:
            plan = plan_of(main)
        except ValueError as error:
            diag.error(main, str(error))
            return
        num_ipus = self.num_ipus if plan is None else max(self.num_ipus, plan.num_ipus)
        with main.location, ir.InsertionPoint(main):
            graph = build(pd.GraphOp, i64(num_ipus), i64(self.replication_factor), i64(self.tiles_per_ipu))
        graph_block = graph.operation.regions[0].blocks.append()
        if self.floating_point_exceptions:
            graph.operation.attributes[FP_EXCEPTIONS_ATTR] = ir.ArrayAttr.get(
                [string(text) for text in self.floating_point_exceptions])
        loc = main.location
        results = parts[0].outputs
        every_step = parts[0].every_step
        anchored = parts[0].anchored
        streams, plain = [], 0  # each output's stream: the model's outputs, then the anchors
        for index in range(len(results)):
            streams.append(_anchor_stream(len(streams) - plain) if index in anchored else _output_stream(plain))
            plain += index not in anchored
        modes = {index: (None, 1) if index in every_step else
                 (anchored[index][1].mode, anchored[index][1].period) if index in anchored else
                 (OutputMode(self.output_mode), self.return_period) for index in range(len(results))}
        try:  # Options.anchorTensor on state: the module's ipu.anchored_state, checked
            state = anchored_state(module)
        except ValueError as error:
            diag.error(module, f"poplar-build-program: {error}")
            return
        names = [name for name, (kind, _) in variables_spec.items() if kind != RoleKind.INPUT]
        for problem in state_anchor_problems(state, names):
            diag.error(module, f"poplar-build-program: {problem}")
        for anchor in state:  # a sharded variable holds one replica's part: no stream carries the tensor
            if anchor.name in shards:
                diag.error(module, f"poplar-build-program: the anchored tensor '{anchor.name}' is sharded across the "
                                   "replicas (TensorLocationSettings.useReplicatedTensorSharding): each replica holds "
                                   "only its part, so it cannot be streamed after each step. Anchor it with "
                                   "OutputMode.Final (read after the call, which joins the parts), or keep its class "
                                   "unsharded")
        named = list(anchored.values()) + [(anchor.name, anchor.mode) for anchor in state]
        every_n = list(modes.values()) + [(anchor.mode.mode, anchor.mode.period) for anchor in state]
        problem = anchor_period_problem(named, every_n, self.device_iterations, self.gradient_accumulation,
                                        self.return_period if self.output_mode == OutputMode.EVERY_N else None)
        if problem is not None:
            diag.error(main, problem)
        if diag.failed:
            return
        interface = pd.Interface(
            inputs={name: _input_stream(name) for name, (kind, _) in variables_spec.items() if kind == RoleKind.INPUT},
            outputs=tuple(stream for index, stream in enumerate(streams) if index not in anchored),
            variables=tuple((kind.value, name) for name, (kind, _) in variables_spec.items() if kind != RoleKind.INPUT),
            step=STEP_FUNCTION, update=UPDATE_FUNCTION if update is not None else None, main=pd.MAIN_PROGRAM)
        # poptorch.set_overlap_for_input / _output: arg_attrs / res_attrs -> the host stream.
        input_overlap = {name: attr for (name, _), attr in zip(parts[0].infos, _overlaps(main, "arg_attrs"), strict=False)}
        output_overlap = [attr for attr, role in zip(_overlaps(main, "res_attrs"), read_roles(main, RESULTS), strict=True)
                          if role is None or role.kind not in _WRITES]
        with loc, ir.InsertionPoint(graph_block):
            variables: dict[str, ir.Value] = {}
            for name, (kind, type_) in variables_spec.items():
                variable_name = _input_variable(name) if kind == RoleKind.INPUT else name
                variables[name] = _variable(variable_name, _KINDS[kind], type_)
                if name in shards:
                    variables[name].owner.attributes[pd.REPLICA_SHARD_ATTR] = shards[name]
                if kind == RoleKind.INPUT:
                    stream = build(pd.HostStreamOp, string(interface.input_stream(name)), string(StreamDirection.HOST_TO_DEVICE), ir.TypeAttr.get(type_))
                    if input_overlap.get(name) is not None:
                        stream.operation.attributes[OVERLAP_ATTR] = input_overlap[name]
            anchors = []
            for index, value in enumerate(results):
                stream = build(pd.HostStreamOp, string(streams[index]), string(StreamDirection.DEVICE_TO_HOST), ir.TypeAttr.get(value.type))
                if output_overlap[index] is not None:
                    stream.operation.attributes[OVERLAP_ATTR] = output_overlap[index]
                anchors.append(_variable(f"anchor.{index}", VariableKind.ANCHOR, value.type))
            sums = {index: _variable(f"sum.{index}", VariableKind.SUM, value.type) for index, value in enumerate(results)
                    if modes[index][0] == OutputMode.SUM}
            state_values = []  # an anchored state variable streams itself, through the next host.anchor.<k>
            for offset, anchor in enumerate(state):
                stream_name, variable = _anchor_stream(len(anchored) + offset), variables[anchor.name]
                build(pd.HostStreamOp, string(stream_name), string(StreamDirection.DEVICE_TO_HOST), ir.TypeAttr.get(variable.type))
                total = (_variable(f"sum.{stream_name[len('host.'):]}", VariableKind.SUM, variable.type)
                         if anchor.mode.mode == OutputMode.SUM else None)
                state_values.append(HostValue(variable, stream_name, anchor.mode.mode, anchor.mode.period, total, True))
            step = build(pd.FunctionOp, string(interface.step))
            update_function = build(pd.FunctionOp, string(interface.update)) if interface.update is not None else None
        self._fill(parts[0], interface, step.operation.regions[0].blocks.append(), variables, anchors, read_inputs=True)
        if update_function is not None:
            self._fill(parts[1], interface, update_function.operation.regions[0].blocks.append(), variables, [], read_inputs=False)
        for function in (step, update_function):  # poptorch.for_loop / cond -> variables and programs
            region_op = first_control_flow(function.operation) if function is not None else None
            if region_op is not None:
                if num_ipus > 1:
                    diag.error(region_op, "poptorch.for_loop / poptorch.cond in a model over several IPUs is not supported "
                                     "yet: run the model on one IPU, or write the loop out in Python")
                    return
                expand_control_flow(graph_block, function.operation)
        _place_on_ipus(graph_block, variables)
        if plan is not None:
            _attach_plan(step.operation, plan)
            if PHASES_ATTR in main.attributes:  # phased execution: the phase of each stage (pipeline-schedule)
                step.operation.attributes[PHASES_ATTR] = main.attributes[PHASES_ATTR]
        with loc, ir.InsertionPoint(graph_block):
            sequence = build(pd.SequenceOp, string(interface.main))
        values = [HostValue(anchors[index], streams[index], *modes[index], sums.get(index)) for index in range(len(results))]
        values += state_values
        build_main(sequence.operation.regions[0].blocks.append(), loc, interface.step, interface.update, values,
                   self.device_iterations, self.gradient_accumulation if update is not None else 1)
        graph.operation.attributes[pd.INTERFACE_ATTR] = interface.attr()
        if anchored or state:
            with loc:
                graph.operation.attributes[pd.ANCHORS_ATTR] = ir.ArrayAttr.get([
                    pd.Anchor(name, streams[index], mode.mode.value, mode.period).attr()
                    for index, (name, mode) in sorted(anchored.items())] + [
                    pd.Anchor(anchor.name, value.stream, anchor.mode.mode.value, anchor.mode.period).attr()
                    for anchor, value in zip(state, state_values, strict=True)])
        if ANCHORED_STATE_ATTR in module.attributes:
            del module.attributes[ANCHORED_STATE_ATTR]  # now the graph's poplar.anchors
        for part in parts:
            part.func.erase()

    def _read(self, func: ir.Operation, diag: Diagnostics) -> _Function:
        """A function's argument and result roles, and its body checked to be poplar ops."""
        body = func.regions[0].blocks[0]
        args = list(body.arguments)
        try:
            arg_roles, res_roles = read_roles(func, ARGUMENTS), read_roles(func, RESULTS)
            res_modes = result_output_modes(func)
        except ValueError as error:
            diag.error(func, str(error))
            return _Function(func, args, [], [], [], [], None)
        to_host = [(role, mode) for role, mode in zip(res_roles, res_modes, strict=True) if role is None or role.kind not in _WRITES]
        every_step = {index for index, (role, _) in enumerate(to_host) if role is not None and role.kind == RoleKind.INPUT_UPDATE}
        anchored = {index: (role.name, mode) for index, (role, mode) in enumerate(to_host)
                    if role is not None and role.kind == RoleKind.ANCHOR}
        for name, mode in anchored.values():
            if mode is None:
                diag.error(func, f"anchored result '{name}' has no 'ipu.output_mode' (the driver writes it): give it "
                                 "#ipu.output_mode<mode, period>")
                return _Function(func, args, [], [], [], [], None)
        infos = []
        for i, role in enumerate(arg_roles):
            if role is None:
                diag.error(func, f"argument #{i} has no '{ROLE_ATTR}' (set by the frontend)")
                return _Function(func, args, [], [], [], [], None)
            if role.kind not in _KINDS:
                diag.error(func, f"argument #{i} has kind '{role.kind}', which is not an argument's "
                                 f"(expected one of {', '.join(_KINDS)})")
                return _Function(func, args, [], [], [], [], None)
            if not role.name:
                diag.error(func, f"argument #{i} ({role.kind.value}) has an empty name in its '{ROLE_ATTR}'; its device "
                                 "variable and host stream are named after it: give every argument a unique name")
                return _Function(func, args, [], [], [], [], None)
            twin = next((j for j, (name, _) in enumerate(infos) if name == role.name), None)
            if twin is not None:
                diag.error(func, f"arguments #{twin} and #{i} are both named '{role.name}'; each names its own device "
                                 "variable: give every argument a unique name")
                return _Function(func, args, [], [], [], [], None)
            infos.append((role.name, role.kind))
        ops = list(body.operations)
        terminator = ops[-1].operation
        for op in ops[:-1]:
            name = op.operation.name
            if not name.startswith("poplar.") and name not in ("ipu.for_loop", "ipu.if", "ipu.region_result"):
                diag.error(op, f"'{name}' is not a poplar op; run convert-torch-to-poplar first")
        all_results = list(terminator.operands)
        writes: list[tuple[str, ir.Value]] = []
        outputs: list[ir.Value] = []
        for value, role in zip(all_results, res_roles, strict=True):
            if role is not None and role.kind in _WRITES:
                writes.append((role.name, value))
            else:
                outputs.append(value)
        return _Function(func, args, infos, [op.operation for op in ops[:-1]], writes, outputs, terminator, every_step,
                         anchored)

    def _fill(self, part: _Function, interface: pd.Interface, block: ir.Block, variables: dict[str, ir.Value],
              anchors: list[ir.Value], read_inputs: bool) -> None:
        """Move a function's body into ``block``: input copies first, then the ops, then
        the copies of its results into anchors and variables."""
        loc = part.func.location
        with loc, ir.InsertionPoint(block):
            last = build(pd.SyncOp, string(SyncKind.INTERNAL))  # a compute set boundary after the input copies
            if read_inputs:
                for name, kind in part.infos:
                    if kind == RoleKind.INPUT:
                        copy = build(pd.StreamCopyOp, variables[name], string(interface.input_stream(name)))
                        copy.operation.move_before(last.operation)
        last = last.operation
        for op in part.ops:
            op.move_after(last)
            last = op
        by_arg = {}
        for (name, _), arg in zip(part.infos, part.args, strict=True):
            arg.replace_all_uses_with(variables[name])
            by_arg[arg.arg_number] = variables[name]
        with part.terminator.location, ir.InsertionPoint(block):
            for value, anchor in zip(part.outputs, anchors, strict=True):
                source = by_arg[value.arg_number] if isinstance(value, ir.BlockArgument) else value
                build(pd.CopyOp, source, anchor)
            # Updated weights, buffers, optimizer state and accumulators go back to their variables.
            for name, value in part.writes:
                source = by_arg[value.arg_number] if isinstance(value, ir.BlockArgument) else value
                if source != variables[name]:
                    build(pd.CopyOp, source, variables[name])


def _arg_attr(func: ir.Operation, name: str) -> list[ir.Attribute | None]:
    """Each argument's attribute ``name`` in ``arg_attrs``, None where unset."""
    entries = [ir.DictAttr(entry) for entry in ir.ArrayAttr(func.attributes[ARGUMENTS])] if ARGUMENTS in func.attributes else []
    return [entry[name] if name in entry else None for entry in entries]


def _overlaps(func: ir.Operation, which: str) -> list[ir.Attribute | None]:
    """Each argument's (``arg_attrs``) or result's (``res_attrs``) ``poplar.overlap``, None where unset."""
    function_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    count = len(function_type.inputs if which == "arg_attrs" else function_type.results)
    entries = [ir.DictAttr(entry) for entry in ir.ArrayAttr(func.attributes[which])] if which in func.attributes else []
    return [entries[i][OVERLAP_ATTR] if i < len(entries) and OVERLAP_ATTR in entries[i] else None for i in range(count)]


def _ipu(op: ir.Operation) -> int | None:
    return ir.IntegerAttr(op.attributes[IPU_ATTR]).value if IPU_ATTR in op.attributes else None


def _place_on_ipus(graph_block: ir.Block, variables: dict[str, ir.Value]) -> None:
    """Put each variable on the IPU of its first user, give every op an IPU, and copy
    values that cross IPUs into exchange variables on the consumer's IPU (inter-IPU
    copies). Ops without ``pipeline.ipu`` (optimizer updates, copies) run where their
    first operand lives; a single-IPU program is left as it is."""
    functions = [op.operation for op in graph_block.operations if op.operation.name == "poplar.function"]
    body_ops = [inner.operation for f in functions for inner in f.regions[0].blocks[0].operations]
    if not any(_ipu(op) for op in body_ops):
        return
    value_ipu = _infer_placement(body_ops, list(variables.values()))
    for variable in variables.values():
        ipu = value_ipu.setdefault(variable, 0)
        variable.owner.attributes["ipu"] = i64(ipu)
    exchanges: dict[tuple[ir.Value, int], ir.Value] = {}
    count = 0
    for function in functions:
        for op in [inner.operation for inner in function.regions[0].blocks[0].operations]:
            ipu = _ipu(op)
            if ipu is None:
                ipu = next((value_ipu[r] for r in op.results if r in value_ipu), None)
                if ipu is None:
                    ipu = next((value_ipu[v] for v in op.operands if v in value_ipu), 0)
                if op.name not in DATA_MOVES:
                    op.attributes[IPU_ATTR] = i64(ipu)
            if op.name == "poplar.constant":  # lowered with ipu = 0: it lives where it runs
                op.attributes["ipu"] = i64(ipu)
            if op.name in DATA_MOVES:
                continue  # copies move data between IPUs themselves
            for index, operand in enumerate(list(op.operands)):
                source = value_ipu.get(operand)
                if source is None or source == ipu or operand.type is None:
                    continue
                key = (operand, ipu)
                if key not in exchanges:
                    with op.location, ir.InsertionPoint(graph_block.operations[0]):
                        exchange = _variable(f"exchange.{count}", VariableKind.EXCHANGE, operand.type, ipu)
                    count += 1
                    with op.location, ir.InsertionPoint(op):
                        build(pd.CopyOp, operand, exchange)
                    exchanges[key] = exchange
                    value_ipu[exchange] = ipu
                op.operands[index] = exchanges[key]
            for result in op.results:
                value_ipu[result] = ipu


def _attach_plan(step: ir.Operation, plan: Plan) -> None:
    """Give the step function the plan the schedule and the runtime follow, with the IPU
    of each stage (from the staged ops)."""
    stage_ipu: dict[int, int] = {}
    for op in step.regions[0].blocks[0].operations:
        op = op.operation
        if STAGE_ATTR in op.attributes and IPU_ATTR in op.attributes:
            stage_ipu.setdefault(ir.IntegerAttr(op.attributes[STAGE_ATTR]).value, _ipu(op))
    stage_ipus: list[int] = []
    for stage in range(plan.num_stages):  # a stage without ops (nothing to do) stays on its predecessor's IPU
        stage_ipus.append(stage_ipu.get(stage, stage_ipus[-1] if stage_ipus else 0))
    set_plan(step, plan.with_stage_ipus(stage_ipus))




def _infer_placement(ops: list[ir.Operation], variables: list[ir.Value]) -> dict[ir.Value, int]:
    """The IPU of every value whose placement follows from the placed ops.

    A variable lives on the IPU of its first placed user. An unplaced op (accumulation,
    optimizer update) runs where its first placed tensor operand lives, else where the
    first placed user of its results runs; scalars (learning rate, loss scaling) decide
    only when nothing else does. So a weight's accumulator, optimizer state and update
    sit on the weight's IPU. Iterates to a fixed point: placing an op can place a
    variable that places another op."""
    value_ipu: dict[ir.Value, int] = {}
    op_ipu: dict[int, int] = {}
    for allow_scalars in (False, True):
        changed = True
        while changed:
            changed = False
            for variable in variables:
                if variable not in value_ipu:
                    placed = [op_ipu[hash(use.owner)] for use in variable.uses if hash(use.owner) in op_ipu]
                    if placed:
                        value_ipu[variable], changed = placed[0], True
            for op in ops:
                if op.name in DATA_MOVES or hash(op) in op_ipu:
                    continue
                ipu = _placed(op, value_ipu, op_ipu, allow_scalars)
                if ipu is None:
                    continue
                op_ipu[hash(op)], changed = ipu, True
                for result in op.results:
                    value_ipu.setdefault(result, ipu)
    return value_ipu


def _is_scalar(value: ir.Value) -> bool:
    return isinstance(value.type, ir.RankedTensorType) and ir.RankedTensorType(value.type).rank == 0


def _placed(op: ir.Operation, value_ipu: dict[ir.Value, int], op_ipu: dict[int, int], allow_scalars: bool) -> int | None:
    ipu = _ipu(op)
    if ipu is not None:
        return ipu
    tensors = [value_ipu[v] for v in op.operands if v in value_ipu and not _is_scalar(v)]
    if tensors:
        return tensors[0]
    users = []
    for result in op.results:
        for use in result.uses:
            owner = use.owner
            if hash(owner) in op_ipu:
                users.append(op_ipu[hash(owner)])
            elif owner.name == "poplar.program_copy" and owner.operands[1] in value_ipu:
                users.append(value_ipu[owner.operands[1]])  # e.g. zeros that reset an accumulator
    if users:
        return users[0]
    scalars = [value_ipu[v] for v in op.operands if v in value_ipu]
    return scalars[0] if scalars and allow_scalars else None


@dataclasses.dataclass
class _Function:
    """A function being turned into a poplar.function: its roles and its body."""

    func: ir.Operation
    args: list[ir.Value]
    infos: list[tuple[str, RoleKind]]  # (name, role) of each argument
    ops: list[ir.Operation]
    writes: list[tuple[str, ir.Value]]
    outputs: list[ir.Value]
    terminator: ir.Operation | None
    every_step: set[int] = dataclasses.field(default_factory=set)  # outputs streamed after every step
    anchored: dict[int, tuple[str, AnchorMode]] = dataclasses.field(default_factory=dict)  # output -> (tensor, mode)


def _variable(name: str, kind: VariableKind, type_: ir.Type, ipu: int = 0) -> ir.Value:
    """A new ``poplar.variable`` (not yet mapped to tiles) at the current insertion point."""
    return build(pd.VariableOp, string(name), string(kind), i64(ipu), ir.DenseI64ArrayAttr.get([]), type_).result
