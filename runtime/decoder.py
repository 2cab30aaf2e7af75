"""The IPU Model's decoder: a ``poplar.graph`` becomes, once, a :class:`Program` of steps
that runs many times.

Every SSA value gets a slot in a flat environment list and every op a closure calling
its kernel (``runtime/kernels/``); ``program_repeat`` becomes a Python loop over its
steps, ``program_call`` runs the function's steps, and a device loop over a pipelined
function runs on the :class:`~ipu_mlir.runtime.pipeline_executor.PipelineExecutor`.
Decoding rewrites nothing: linear layers, in-place updates, shared pool indices and
copies that share their source's buffer are in the graph (the ``poplar-*`` execution
passes). Variables live in per-IPU stores
(:class:`~ipu_mlir.runtime.device_store.DeviceStore`) owned by the caller, so weights
stay on the emulated device between runs. Dead temporaries are dropped after their last
use, which bounds host memory the way liveness bounds tile memory.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch_mlir import ir

from ipu_mlir.dialects.pipeline import plan_of
from ipu_mlir.dialects.pipeline_attrs import ipu_of
from ipu_mlir.dialects.poplar import (
    MAIN_PROGRAM,
    CopyMode,
    StreamDirection,
    VariableKind,
    copy_mode,
    interface_of,
    variable_kind,
)
from ipu_mlir.dialects.poplar import remote_buffer_of, replica_shard_of
from ipu_mlir.dialects.poplar import POPLAR_VIEWS, PRINT_FORMAT_ATTR
from ipu_mlir.dialects.poplar.planning import floating_point_exceptions
from ipu_mlir.dialects.poplar.program_order import scheduled_ops
from ipu_mlir.dialects.print_format import read_print_format
from ipu_mlir.support.diagnostics import location_label
from ipu_mlir.support.ir_walk import operands_within

from . import fp_exceptions
from . import steps as st
from .print_format import format_tensor
from .device_store import DeviceStore, HostIO, StreamInfo, VariableInfo
from .kernels import KERNELS, KernelError, attr, constant_tensor, tensor_type, torch_dtype
from .pipeline_executor import PipelineExecutor, StagedFunction
from .replicas import Communicator, collective_batch_step, collective_step
from .steps import Step

logger = logging.getLogger("ipu_mlir.runtime")

class Program:
    """A decoded ``poplar.graph`` ready to run many times."""

    def __init__(self, graph: ir.Operation, replica_rank: int = 0, communicator: Communicator | None = None) -> None:
        if graph.name != "poplar.graph":
            raise KernelError(f"expected a 'poplar.graph', got '{graph.name}'")
        self.num_ipus = attr(graph, "num_ipus")
        # A graph of R > 1 replicas runs as a ReplicatedProgram (runtime/replicas.py): one
        # Program per replica, each with its global rank, meeting in a communicator.
        self.replication_factor = attr(graph, "replication_factor")
        self.replica_rank = replica_rank
        self.communicator = communicator
        self._slots: dict[ir.Value | tuple[str, str], int] = {}  # values, and ("stash", id) for stashes
        self.variables: dict[str, VariableInfo] = {}
        self._variable_slots: dict[str, int] = {}
        self._variable_of_slot: dict[int, VariableInfo] = {}
        self.streams: dict[str, StreamInfo] = {}
        self._constants: list[tuple[int, torch.Tensor, int]] = []  # (slot, value, IPU)
        self._functions: dict[str, list[Step]] = {}
        self._staged: dict[str, StagedFunction] = {}
        self._executor = PipelineExecutor(self.num_ipus)
        # Why a pipelined plan runs micro-batch by micro-batch instead (None: it does not).
        self.sequential_reason: str | None = None
        self._pipelined_loops = 0
        # The torch device of each emulated IPU for the current run (see run()).
        self._devices: dict[int, torch.device] = {}
        self._placed = False  # IPUs placed on chosen devices: tensors move at IPU boundaries
        self._placed_constants: dict[tuple[int, torch.device], torch.Tensor] = {}
        # Streaming memory: each remote buffer's IPU, the buffer of each off-chip variable,
        # and each IPU's remote store for the current run (see environment()).
        self.remote_buffers: dict[str, int] = {}
        self.homes: dict[str, str] = {}
        # Replicated tensor sharding: each sharded variable's whole tensor (its ReplicaShard).
        self.shards: dict[str, Any] = {}
        self._remote: dict[int, dict[str, torch.Tensor]] = {}
        self._remote_types: dict[str, tuple[list[int], torch.dtype]] = {}
        self.main: list[Step] = []
        self.io: HostIO | None = None
        # Random ops: seeded by poptorch from Options.randomSeed (set_seed); each call of a
        # function with random ops gets the next number in the slot _call_slot.
        self.seed = 0
        self._calls = 0
        self._random_ops = 0
        self._call_slot = self._slot(("random", "call"))
        # Options.Precision.enableFloatingPointExceptions: compute steps are checked (only then).
        self._fp_traps = floating_point_exceptions(graph)
        self._decode_graph(graph)

    @property
    def last_trace(self) -> list[tuple[int, int, int, int, float, float]]:
        """(step, ipu, stage, micro-batch, start, end) of each task of the last pipelined loop."""
        return self._executor.last_trace

    # -- decoding -------------------------------------------------------------------
    def _slot(self, value: ir.Value | tuple[str, str]) -> int:
        slot = self._slots.get(value)
        if slot is None:
            slot = len(self._slots)
            self._slots[value] = slot
        return slot

    def _decode_graph(self, graph: ir.Operation) -> None:
        block = graph.regions[0].blocks[0]
        interface = interface_of(graph)  # None for a graph written by hand: the engine runs "main"
        main_name = MAIN_PROGRAM if interface is None else interface.main
        main_op = None
        for op in block.operations:
            op = op.operation
            name = op.name
            if name == "poplar.variable":
                shape, dtype = tensor_type(op.results[0])
                info = VariableInfo(attr(op, "name"), variable_kind(op), attr(op, "ipu"), tuple(shape), dtype)
                self.variables[info.name] = info
                slot = self._slot(op.results[0])
                self._variable_slots[info.name] = slot
                self._variable_of_slot[slot] = info
                if remote_buffer_of(op) is not None:
                    self.homes[info.name] = remote_buffer_of(op)
                shard = replica_shard_of(op)
                if shard is not None:
                    self.shards[info.name] = shard
            elif name == "poplar.constant":
                self._constants.append((self._slot(op.results[0]), constant_tensor(op.attributes["value"], op.results[0].type), ipu_of(op)))
            elif name == "poplar.host_stream":
                element_type = ir.RankedTensorType(ir.TypeAttr(op.attributes["type"]).value)
                stream = StreamInfo(attr(op, "name"), StreamDirection(attr(op, "direction")), tuple(element_type.shape),
                                    torch_dtype(element_type.element_type))
                self.streams[stream.name] = stream
            elif name == "poplar.function":
                self._functions[attr(op, "name")] = []  # decoded below, calls may come first
            elif name == "poplar.program_sequence" and attr(op, "name") == main_name:
                main_op = op
            elif name == "poplar.remote_buffer":
                self.remote_buffers[attr(op, "name")] = ipu_of(op)
                element = ir.RankedTensorType(ir.TypeAttr(op.attributes["type"]).value)
                self._remote_types[attr(op, "name")] = ([attr(op, "repeats"), *element.shape] if attr(op, "repeats") > 1
                                                        else list(element.shape), torch_dtype(element.element_type))
            else:
                raise KernelError(f"{location_label(op.location)}: '{name}' cannot appear at graph level")
        for op in block.operations:
            op = op.operation
            if op.name == "poplar.function":
                self._decode_function(op)
        # Variables that outlive a run (not the per-run inputs, outputs and activations).
        self._persistent_slots = [(name, slot) for name, slot in self._variable_slots.items()
                                  if self.variables[name].kind.outlives_a_run and name not in self.homes]
        self._output_streams = [s.name for s in self.streams.values() if s.direction == StreamDirection.DEVICE_TO_HOST]
        if main_op is None:
            raise KernelError(f"the graph has no 'poplar.program_sequence' named \"{main_name}\"")
        self.main = self._decode_block([op.operation for op in main_op.regions[0].blocks[0].operations])
        if self._staged and not self._pipelined_loops:
            self.sequential_reason = "the output mode's device loop streams outputs between its steps"
            logger.warning("the pipeline stages run one micro-batch at a time: %s", self.sequential_reason)

    def _decode_function(self, function: ir.Operation) -> None:
        name = attr(function, "name")
        block = function.regions[0].blocks[0]
        plan = plan_of(function)
        scheduled = scheduled_ops(block)
        ops = [op.operation for op in block.operations] if scheduled is None else [op for op, _ in scheduled]
        # A function with random ops numbers its calls: each call (one micro-batch) draws
        # from its own seed, so the masks do not depend on the order stages run in.
        counter = [self._count_call] if any(op.name.startswith("poplar.poprand") for op in ops) else []
        if plan is None or not plan.pipelined or len(plan.stage_ipus) < 2:
            self._functions[name].extend(counter + self._decode_block(ops))
            return
        if scheduled is None:
            raise KernelError(f"function '{name}' has a pipelined plan but no 'pipeline.schedule': run "
                              "pipeline-schedule after poplar-build-program")
        # Stage order (program order within a stage, a valid order once pipeline-schedule
        # accepted the stages): a temporary is freed after its last use in the order the
        # stages run.
        ordered = sorted(scheduled, key=lambda pair: pair[1])
        ops, op_stages = [op for op, _ in ordered], [stage for _, stage in ordered]
        step_stages: list[int] = [0] * len(counter)  # stage 0 runs the micro-batches in order
        steps = counter + self._decode_block(ops, op_stages, step_stages)
        self._functions[name].extend(steps)
        shared = {slot for slot, info in self._variable_of_slot.items() if not info.kind.holds_one_micro_batch}
        self._staged[name] = StagedFunction.build(ops, op_stages, steps, step_stages, list(plan.stage_ipus), self._slot, shared)

    def _decode_block(self, ops: list[ir.Operation], op_stages: list[int] | None = None,
                      step_stages: list[int] | None = None) -> list[Step]:
        """Decode ``ops`` (a block's ops, or a pipelined step's stage ops in stage order);
        with ``op_stages`` (the stage of each op), ``step_stages`` receives the stage of
        each returned step."""
        # Last use of each temporary within this block, to free it early.
        last_use: dict[int, int] = {}
        defined_here: set[int] = set()
        # Off-chip variables loaded here are on chip from each load to the last use before
        # the next load of the same variable (poplar-place-tensors loads before each run of
        # uses): each run's value is dropped at the end of its run, not at the block's end.
        loaded_here: set[int] = set()
        kills: dict[int, list[int]] = {}
        for index, op in enumerate(ops):
            if op.name == "poplar.program_remote_load":
                slot = self._slot(op.operands[0])
                if slot in loaded_here and last_use[slot] < index:  # the previous run ended there
                    kills.setdefault(last_use[slot], []).append(slot)
                loaded_here.add(slot)
            for operand in operands_within(op):
                last_use[self._slot(operand)] = index
            for result in op.results:
                defined_here.add(self._slot(result))
        constants = {slot for slot, _, _ in self._constants} | {self._slot(op.results[0]) for op in ops if op.name == "poplar.constant"}
        for slot, index in last_use.items():
            if (slot in defined_here and slot not in self._variable_of_slot and slot not in constants) or slot in loaded_here:
                kills.setdefault(index, []).append(slot)
        steps = []
        batches = self._collective_batches(ops) if op_stages is None else {}
        skipped: set[int] = set()
        for index, op in enumerate(ops):
            if index in skipped:
                continue
            if index in batches:  # adjacent collectives: one meeting of the replicas (runtime/replicas.py)
                members = batches[index]
                skipped.update(range(index + 1, index + len(members)))
                step = collective_batch_step(members, self)
                dead = tuple(slot for i in range(index, index + len(members)) for slot in kills.get(i, ()))
                steps.append(st.with_kills(step, dead) if dead else step)
                continue
            step = self._decode_op(op)
            if step is not None and self._fp_traps and (op.name in KERNELS or op.name == "poplar.popops_scaled_add_to") \
                    and op.name not in POPLAR_VIEWS:
                ins = tuple(self._slot(v) for v in op.operands)
                outs = tuple(self._slot(r) for r in op.results) or ins  # an in-place op writes its operands
                step = fp_exceptions.checked(step, op, ins, outs, self._fp_traps)
            if step is not None:
                dead = tuple(kills.get(index, ()))
                steps.append(st.with_kills(step, dead) if dead else step)
                if step_stages is not None and op_stages is not None:
                    step_stages.append(op_stages[index])
        return steps

    def _collective_batches(self, ops: list[ir.Operation]) -> dict[int, list[ir.Operation]]:
        """Runs of adjacent collectives none of which reads another's result (as
        ipu-insert-training places a step's gradient reductions), by the index of their
        first op: a replicated run meets once for all of them. A graph of one replica, and
        a lone collective, need no batch."""
        if self.replication_factor == 1:
            return {}
        batches: dict[int, list[ir.Operation]] = {}
        index = 0
        while index < len(ops):
            run: list[ir.Operation] = []
            produced: set[ir.Value] = set()
            while (index + len(run) < len(ops) and ops[index + len(run)].name.startswith("poplar.gcl_")
                   and not any(operand in produced for operand in ops[index + len(run)].operands)):
                produced.update(ops[index + len(run)].results)
                run.append(ops[index + len(run)])
            if len(run) > 1:
                batches[index] = run
            index += max(len(run), 1)
        return batches

    def _decode_op(self, op: ir.Operation) -> Step | None:
        name = op.name
        if name == "poplar.program_repeat":
            count = attr(op, "count")
            pipelined = self._pipelined_loop(op, count)
            if pipelined is not None:
                return pipelined
            return st.repeat(count, self._decode_block([inner.operation for inner in op.regions[0].blocks[0].operations]))
        if name == "poplar.program_sequence":
            return st.sequence(self._decode_block([inner.operation for inner in op.regions[0].blocks[0].operations]))
        if name == "poplar.program_if":  # poptorch.cond: the branch the device-computed condition picks
            return self._decode_if(op)
        if name == "poplar.program_call":
            callee = attr(op, "callee")
            if callee not in self._functions:
                raise KernelError(f"{location_label(op.location)}: call to undefined function '{callee}'")
            return st.sequence(self._functions[callee])
        if name == "poplar.program_print_tensor":
            slot, title = self._slot(op.operands[0]), attr(op, "title")
            layout = read_print_format(op, PRINT_FORMAT_ATTR)

            def print_tensor(env: list) -> None:
                print(format_tensor(title, env[slot], layout), flush=True)

            return print_tensor
        if name == "poplar.program_sync":
            return None  # the emulator runs steps in order: a sync has nothing to wait for
        if name in ("pipeline.stash", "pipeline.restore"):
            return self._decode_stash(op)
        if name in ("pipeline.send", "pipeline.recv"):
            return self._decode_channel(op)
        if name in ("pipeline.remote_store", "pipeline.remote_load"):
            return self._decode_phase_move(op)
        if name == "poplar.program_stream_copy":
            return self._decode_stream_copy(op)
        if name == "poplar.program_copy":
            return self._decode_copy(op)
        if name in ("poplar.program_remote_load", "poplar.program_remote_store"):
            return self._decode_remote_copy(op)
        if name == "poplar.popops_scaled_add_to":
            return self._decode_scaled_add_to(op)
        if name.startswith("poplar.gcl_"):  # collectives: among the replicas (runtime/replicas.py)
            return collective_step(op, self, self._slot(op.operands[0]), self._slot(op.results[0]))
        if name == "poplar.constant":
            slot = self._slot(op.results[0])
            value = constant_tensor(op.attributes["value"], op.results[0].type)
            self._constants.append((slot, value, ipu_of(op)))
            return None
        factory = KERNELS.get(name)
        if factory is None:
            raise KernelError(f"{location_label(op.location)}: '{name}' has no IPU Model kernel")
        try:
            fn = factory(op)
        except KernelError as error:
            raise KernelError(f"{location_label(op.location)}: {error}") from None
        ins = tuple(self._slot(v) for v in op.operands)
        outs = tuple(self._slot(r) for r in op.results)
        if name.startswith("poplar.poprand"):
            return self._random_step(fn, ins, outs)
        if not outs:
            return st.compute_in_place(fn, ins)
        if len(outs) != 1:
            return st.compute_multi(fn, ins, outs)
        return st.compute(fn, ins, outs[0])

    def _decode_if(self, op: ir.Operation) -> Step:
        condition = self._slot(op.operands[0])
        then_steps, else_steps = (
            self._decode_block([inner.operation for inner in region.blocks[0].operations]) if len(region.blocks) else []
            for region in op.regions)

        def choose(env: list) -> None:
            for step in then_steps if bool(env[condition]) else else_steps:
                step(env)

        return choose

    def _decode_scaled_add_to(self, op: ir.Operation) -> Step:
        dst, src = self._slot(op.operands[0]), self._slot(op.operands[1])
        scale = attr(op, "scale")
        if not tensor_type(op.operands[0])[1].is_floating_point:
            scale = int(scale)  # integer tensors take an integer alpha
        program = self

        def scaled_add(env: list) -> None:
            value = env[src]
            if program._placed:  # e.g. OutputMode.Sum: an anchor of another IPU into a total
                value = value.to(env[dst].device)
            env[dst].add_(value, alpha=scale)

        return scaled_add

    # -- random ops -------------------------------------------------------------------
    def _count_call(self, env: list) -> None:
        """Number this call of a function with random ops (one micro-batch)."""
        env[self._call_slot] = self._calls
        self._calls += 1

    def set_seed(self, seed: int) -> None:
        """Seed the random ops (Options.randomSeed) and restart the call numbering."""
        self.seed = seed
        self._calls = 0

    @property
    def rng_state(self) -> list[int]:
        """The random stream's position, ``[seed, calls so far]``: setting it back with
        ``set_rng_state`` (in this or another process) continues the same draws."""
        return [self.seed, self._calls]

    def set_rng_state(self, state: list[int]) -> None:
        self.seed, self._calls = int(state[0]), int(state[1])

    def _random_step(self, fn: Any, ins: tuple[int, ...], outs: tuple[int, ...]) -> Step:
        """A random kernel draws from a generator seeded by the program's seed, the number
        of the call (micro-batch) and the op: the same seed gives the same draws, and
        pipelined stages draw what they would draw one micro-batch at a time."""
        program, call = self, self._call_slot
        index = self._random_ops
        self._random_ops += 1

        def draw(env: list) -> None:
            seed = hash((program.seed, env[call] or 0, index)) & (2**63 - 1)
            results = fn(seed, *[env[i] for i in ins])
            for slot, value in zip(outs, results, strict=True):
                env[slot] = value

        return draw

    # -- data movement ------------------------------------------------------------------
    def _decode_stash(self, op: ir.Operation) -> Step:
        """A stash keeps its micro-batch's value until the restore of the same id: each
        micro-batch runs in its own environment, so the FIFO of ``depth`` entries is the
        set of micro-batches in flight, each holding its entry in one slot."""
        held = self._slot(("stash", attr(op, "stash_id")))
        if op.name == "pipeline.stash":
            value = self._slot(op.operands[0])

            def stash(env: list) -> None:
                env[held] = env[value]

            return stash
        return st.take(held, self._slot(op.results[0]))

    def _decode_channel(self, op: ir.Operation) -> Step:
        """A send gives the destination IPU its own copy of a micro-batch's value (on its
        device); the recv of the same channel in a later stage takes it."""
        channel = self._slot(("channel", attr(op, "channel")))
        if op.name == "pipeline.send":
            return self._copy_to_ipu(self._slot(op.operands[0]), channel, attr(op, "dst_ipu"))
        return st.take(channel, self._slot(op.results[0]))

    def _decode_phase_move(self, op: ir.Operation) -> Step:
        """Phased execution: a ``pipeline.remote_store`` copies a value into its remote buffer
        (in the off-chip store of the buffer's IPU), a ``pipeline.remote_load`` copies the
        buffer onto the IPU ``ipu_id`` of its reader."""
        buffer = attr(op, "buffer")
        if buffer not in self.remote_buffers:
            raise KernelError(f"{location_label(op.location)}: remote buffer \"{buffer}\" is not declared in the graph")
        home, program = self.remote_buffers[buffer], self
        if op.name == "pipeline.remote_store":
            value = self._slot(op.operands[0])

            def remote_store(env: list) -> None:
                program._remote[home][buffer].copy_(env[value])

            return remote_store
        result, ipu = self._slot(op.results[0]), attr(op, "ipu_id")

        def remote_load(env: list) -> None:
            stored = program._remote[home][buffer]
            env[result] = stored.to(program._devices[ipu], copy=True) if program._placed else stored.clone()

        return remote_load

    def _copy_to_ipu(self, src: int, dst: int, ipu: int) -> Step:
        """A step giving IPU ``ipu`` its own copy of slot ``src`` in slot ``dst`` (on its device)."""
        program = self

        def copy_to_ipu(env: list) -> None:
            if program._placed:  # between the devices of the two IPUs
                env[dst] = env[src].to(program._devices[ipu], copy=True)
            else:
                env[dst] = env[src].clone()

        return copy_to_ipu

    def _decode_stream_copy(self, op: ir.Operation) -> Step:
        stream = attr(op, "stream")
        slot = self._slot(op.operands[0])
        info = self.streams[stream]
        program = self
        if info.direction == StreamDirection.HOST_TO_DEVICE:

            ipu = self._variable_of_slot[slot].ipu if slot in self._variable_of_slot else 0

            def read(env: list) -> None:
                value = program.io.pop(stream)
                env[slot] = value.to(program._devices[ipu]) if program._placed else value

            return read
        variable = self._variable_of_slot.get(slot)
        # An anchor gets a buffer of its own each iteration, shared or copied (see
        # _decode_copy); any other variable keeps its buffer, so its value is cloned.
        must_clone = variable is not None and variable.kind is not VariableKind.ANCHOR

        def write(env: list) -> None:
            value = env[slot]
            if program._placed:  # outputs reach the host
                program.io.outputs[stream].append(value.to("cpu", copy=must_clone))
            else:
                program.io.outputs[stream].append(value.clone() if must_clone else value)

        return write

    def _decode_copy(self, op: ir.Operation) -> Step:
        """A copy marked share (poplar-share-buffers) hands the destination the source's
        buffer; otherwise the destination gets the source's elements: a new buffer for a
        variable holding one micro-batch (each micro-batch and iteration its own; an
        exchange buffer on its own IPU), a write into a variable's buffer otherwise."""
        src, dst = self._slot(op.operands[0]), self._slot(op.operands[1])
        if copy_mode(op) is CopyMode.SHARE:
            # run() writes a state variable's new buffer back to the device store.
            def share(env: list) -> None:
                env[dst] = env[src]

            return share
        target = self._variable_of_slot.get(dst)
        if target is not None and target.kind.holds_one_micro_batch:
            return self._copy_to_ipu(src, dst, target.ipu)

        def copy(env: list) -> None:
            env[dst].copy_(env[src])

        return copy

    def _decode_remote_copy(self, op: ir.Operation) -> Step:
        """A load makes the remote buffer's tensor the variable's on-chip value, without a
        copy; a store copies the variable's value into the remote buffer, unless it is that
        tensor already.

        The host holds both memories in the same RAM, so the on-chip copy would only cost
        memory and time (for BERT-base off chip: a copy of every weight and velocity at each
        of its loads, and one load buffer per variable, 680 MB, kept between steps). Sharing
        is exact because poplar-place-tensors loads before each run of uses and stores after
        each run that may write: a run that only reads sees the buffer's value, and a run
        that writes ends with its store, so a write in place (into the shared tensor) or a
        new buffer (a ``share`` copy, copied in by the store) reaches the remote buffer
        before anything else reads it, as the store would bring it. The slot is dropped
        at the end of each run (see :meth:`_decode_block`)."""
        slot, buffer = self._slot(op.operands[0]), attr(op, "buffer")
        if buffer not in self.remote_buffers:
            raise KernelError(f"{location_label(op.location)}: remote buffer \"{buffer}\" is not declared in the graph")
        ipu = self.remote_buffers[buffer]
        program = self
        if op.name == "poplar.program_remote_load":
            def remote_load(env: list) -> None:
                env[slot] = program._remote[ipu][buffer]

            return remote_load

        def remote_store(env: list) -> None:
            stored, value = program._remote[ipu][buffer], env[slot]
            if value is not stored:
                if value.untyped_storage()._cdata == stored.untyped_storage()._cdata:
                    value = value.clone()  # a view of the buffer itself (w.t()): copy from a snapshot
                stored.copy_(value)

        return remote_store

    def _pipelined_loop(self, op: ir.Operation, count: int) -> Step | None:
        """A loop whose body calls a staged function, then only moves its outputs, runs
        as a pipeline over ``count`` micro-batches (see :mod:`runtime.pipeline_executor`)."""
        ops = [inner.operation for inner in op.regions[0].blocks[0].operations]
        if not ops or ops[0].name != "poplar.program_call" or count < 2:
            return None
        staged = self._staged.get(attr(ops[0], "callee"))
        if staged is None or any(inner.name not in ("poplar.program_stream_copy", "poplar.popops_scaled_add_to") for inner in ops[1:]):
            return None
        tail = [step for inner in ops[1:] if (step := self._decode_op(inner)) is not None]
        anchors = [slot for slot, info in self._variable_of_slot.items() if info.kind is VariableKind.ANCHOR]
        executor, timeline = self._executor, staged.timeline(count)
        self._pipelined_loops += 1

        def run(env: list) -> None:
            executor.run(staged, timeline, tail, anchors, env)

        return run

    # -- measuring ------------------------------------------------------------------
    @contextlib.contextmanager
    def observe_steps(self, observer: Callable[[list], None]) -> Iterator[None]:
        """While open, call ``observer(env)`` after every step of ``main`` and of each
        function run step by step (a pipelined loop's stages are not observed): for
        measurements of a run, such as its live memory (:meth:`live_bytes`). Slow."""
        lists = [self.main, *self._functions.values()]
        originals = [list(steps) for steps in lists]

        def observed(step: Step) -> Step:
            def run(env: list) -> None:
                step(env)
                observer(env)

            return run

        for steps in lists:  # in place: the calls hold these lists
            steps[:] = [observed(step) for step in steps]
        try:
            yield
        finally:
            for steps, original in zip(lists, originals, strict=True):
                steps[:] = original

    @contextlib.contextmanager
    def peak_live_bytes(self, stores: dict[int, DeviceStore]) -> Iterator[dict[str, int]]:
        """While open, runs are observed step by step (:meth:`observe_steps`); the yielded
        dict holds :meth:`live_bytes` at the step with the most live bytes. Slow."""
        peak: dict[str, int] = {}

        def observe(env: list) -> None:
            live = self.live_bytes(env, stores)
            if sum(live.values()) > sum(peak.values()):
                peak.clear()
                peak.update(live)

        with self.observe_steps(observe):
            yield peak

    def live_bytes(self, env: list, stores: dict[int, DeviceStore]) -> dict[str, int]:
        """The bytes of the distinct tensor storages the device holds at this point of a run
        (``env``, from :meth:`observe_steps`), by what holds them: ``streaming`` (the remote
        buffers), each on-chip variable kind (``weight``, ``optimizer_state``, ...; an
        off-chip variable's new value before its store as ``<kind> (loaded)``) and
        ``temporaries``. A storage counts once, under the first of these that holds it."""
        seen: dict[int, tuple[str, int]] = {}

        def count(value: object, kind: str) -> None:
            if isinstance(value, torch.Tensor):
                storage = value.untyped_storage()
                seen.setdefault(storage._cdata, (kind, storage.nbytes()))

        for store in stores.values():
            for value in store.remote.values():
                count(value, "streaming")
        for slot, value in enumerate(env):
            info = self._variable_of_slot.get(slot)
            if info is None:
                continue
            count(value, info.kind.value + (" (loaded)" if info.name in self.homes else ""))
        for store in stores.values():
            for name, value in store.tensors.items():
                if name in self.variables:
                    count(value, self.variables[name].kind.value)
        for value in env:
            count(value, "temporaries")
        totals: dict[str, int] = {}
        for kind, nbytes in seen.values():
            totals[kind] = totals.get(kind, 0) + nbytes
        return totals

    def close(self) -> None:
        """Stop the worker threads of the emulated IPUs (a later run starts new ones)."""
        self._executor.close()

    # -- running --------------------------------------------------------------------
    def environment(self, stores: dict[int, DeviceStore]) -> list:
        env: list[Any] = [None] * len(self._slots)
        self._remote = {ipu: store.remote for ipu, store in stores.items()}
        homed = set(self.homes.values())
        for buffer, ipu in self.remote_buffers.items():  # buffers of no variable start at zero
            if buffer not in homed and buffer not in stores[ipu].remote:
                shape, dtype = self._remote_types[buffer]
                stores[ipu].remote[buffer] = torch.zeros(shape, dtype=dtype, device=stores[ipu].device)
        for name, slot in self._variable_slots.items():
            info = self.variables[name]
            store = stores[info.ipu]
            if name in self.homes:  # off chip: in its remote buffer until a load
                store.bind_remote(info, self.homes[name])
                env[slot] = None
                continue
            tensor = store.tensors.get(name)
            if tensor is None:
                tensor = store.allocate(info)
            env[slot] = tensor
        self._devices = {ipu: store.device for ipu, store in stores.items()}
        self._placed = any(store.placed for store in stores.values())
        for slot, value, ipu in self._constants:
            if self._placed:  # moved once per device, not on every run
                key = (slot, self._devices[ipu])
                if key not in self._placed_constants:
                    self._placed_constants[key] = value.to(self._devices[ipu])
                value = self._placed_constants[key]
            env[slot] = value
        return env

    @property
    def ranks(self) -> list[int]:
        """The global ranks of the replicas this object runs (one: its own)."""
        return [self.replica_rank]

    def run_replicas(self, stores: list[dict[int, DeviceStore]],
                     inputs: list[dict[str, list[torch.Tensor]]]) -> list[dict[str, list[torch.Tensor]]]:
        """:meth:`run` as a :class:`~ipu_mlir.runtime.replicas.ReplicatedProgram` of one replica runs."""
        return [self.run(stores[0], inputs[0])]

    def run(self, stores: dict[int, DeviceStore], inputs: dict[str, list[torch.Tensor]]) -> dict[str, list[torch.Tensor]]:
        """Run ``main`` once; ``inputs`` holds each input stream's elements in order."""
        if self.replication_factor != 1 and self.communicator is None:
            raise KernelError(f"the graph has {self.replication_factor} replicas: run it as a ReplicatedProgram "
                              "(ipu_mlir.runtime.replicas), which runs every replica and their collectives")
        self.io = HostIO(inputs, self._output_streams)
        env = self.environment(stores)
        try:
            for step in self.main:
                step(env)
            for name, slot in self._persistent_slots:  # rebound variables: keep their new buffers
                stores[self.variables[name].ipu].tensors[name] = env[slot]
            return self.io.outputs
        finally:
            self.io = None

