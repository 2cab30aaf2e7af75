"""The IPU Model interpreter: decodes a ``poplar.graph`` once into steps, then runs them.

Decoding gives every SSA value a slot in a flat environment list and turns every op into
a closure calling a torch kernel (``runtime/kernels.py``); ``program_repeat`` becomes a
Python loop over its steps, ``program_call`` runs the function's steps. Variables live
in per-IPU stores (:class:`DeviceStore`) owned by the caller, so weights stay on the
emulated device between runs. Dead temporaries are dropped after their last use, which
also bounds host memory the way liveness bounds tile memory.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any

import torch
from torch_mlir import ir

from ipu_mlir.support.diagnostics import location_label
from ipu_mlir.support.ir_walk import operands_within
from ipu_mlir.dialects.pipeline_attrs import holds_one_micro_batch, ipu_of

from ipu_mlir.artifact import schedule

from . import kernels
from .kernels import KernelError, constant_tensor, tensor_type

Step = Callable[[list], None]
logger = logging.getLogger("ipu_mlir.runtime")


@dataclasses.dataclass(frozen=True)
class VariableInfo:
    name: str
    kind: str
    ipu: int
    shape: tuple[int, ...]
    dtype: torch.dtype

    @property
    def nbytes(self) -> int:
        count = 1
        for d in self.shape:
            count *= d
        return count * torch.empty((), dtype=self.dtype).element_size()


@dataclasses.dataclass(frozen=True)
class StreamInfo:
    name: str
    direction: str
    shape: tuple[int, ...]
    dtype: torch.dtype


class DeviceStore:
    """The tensors held by one emulated IPU, by variable name."""

    def __init__(self, ipu: int, device: torch.device | str | None = None) -> None:
        self.ipu = ipu
        # A device chosen by the user (even the CPU) makes the runtime move tensors at
        # the IPU's boundaries (host streams, inter-IPU copies, constants).
        self.placed = device is not None
        self.device = torch.device("cpu" if device is None else device)
        self.tensors: dict[str, torch.Tensor] = {}

    def allocate(self, info: VariableInfo) -> torch.Tensor:
        tensor = torch.zeros(info.shape, dtype=info.dtype, device=self.device)
        self.tensors[info.name] = tensor
        return tensor

    def put(self, name: str, tensor: torch.Tensor) -> None:
        """Hold ``tensor`` as variable ``name``, moved to this IPU's device."""
        self.tensors[name] = tensor.to(self.device)


class HostIO:
    """Per-run host side of the streams: input queues and output lists."""

    __slots__ = ("inputs", "positions", "outputs")

    def __init__(self, inputs: dict[str, list[torch.Tensor]], output_names: list[str]) -> None:
        self.inputs = inputs
        self.positions = dict.fromkeys(inputs, 0)
        self.outputs: dict[str, list[torch.Tensor]] = {name: [] for name in output_names}

    def pop(self, stream: str) -> torch.Tensor:
        position = self.positions[stream]
        queue = self.inputs[stream]
        if position >= len(queue):
            raise RuntimeError(f"host stream '{stream}' ran out of data after {position} elements")
        self.positions[stream] = position + 1
        return queue[position]


class Program:
    """A decoded ``poplar.graph`` ready to run many times."""

    def __init__(self, graph: ir.Operation) -> None:
        if graph.name != "poplar.graph":
            raise KernelError(f"expected a 'poplar.graph', got '{graph.name}'")
        self.num_ipus = kernels.attr(graph, "num_ipus")
        self.replication_factor = kernels.attr(graph, "replication_factor")
        if self.replication_factor != 1:
            raise KernelError(
                f"replication_factor {self.replication_factor}: replicated execution is not available in the IPU Model yet; "
                "use replicationFactor(1)"
            )
        self._slots: dict[ir.Value | tuple[str, str], int] = {}  # values, and ("stash", id) for stashes
        self.variables: dict[str, VariableInfo] = {}
        self._variable_slots: dict[str, int] = {}
        self._variable_of_slot: dict[int, VariableInfo] = {}
        self.streams: dict[str, StreamInfo] = {}
        self._constants: list[tuple[int, torch.Tensor, int]] = []  # (slot, value, IPU)
        self._functions: dict[str, list[Step]] = {}
        self._staged: dict[str, _StagedFunction] = {}
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        # (step, ipu, stage, micro-batch, start, end) of each task of the last pipelined loop.
        self.last_trace: list[tuple[int, int, int, int, float, float]] = []
        # Why a pipelined plan runs micro-batch by micro-batch instead (None: it does not).
        self.sequential_reason: str | None = None
        self._pipelined_loops = 0
        # The torch device of each emulated IPU for the current run (see run()).
        self._devices: dict[int, torch.device] = {}
        self._placed = False  # IPUs placed on chosen devices: tensors move at IPU boundaries
        self._placed_constants: dict[tuple[int, torch.device], torch.Tensor] = {}
        self.main: list[Step] = []
        self.io: HostIO | None = None
        # Random ops: seeded by poptorch from Options.randomSeed (set_seed); each call of a
        # function with random ops gets the next number in the slot _call_slot.
        self.seed = 0
        self._calls = 0
        self._random_ops = 0
        self._call_slot = self._slot(("random", "call"))
        self._decode_graph(graph)

    # -- decoding -------------------------------------------------------------------
    def _slot(self, value: ir.Value) -> int:
        slot = self._slots.get(value)
        if slot is None:
            slot = len(self._slots)
            self._slots[value] = slot
        return slot

    def _decode_graph(self, graph: ir.Operation) -> None:
        block = graph.regions[0].blocks[0]
        main_op = None
        for op in block.operations:
            op = op.operation
            name = op.name
            if name == "poplar.variable":
                shape, dtype = tensor_type(op.results[0])
                info = VariableInfo(kernels.attr(op, "name"), kernels.attr(op, "kind"), kernels.attr(op, "ipu"), tuple(shape), dtype)
                self.variables[info.name] = info
                slot = self._slot(op.results[0])
                self._variable_slots[info.name] = slot
                self._variable_of_slot[slot] = info
            elif name == "poplar.constant":
                self._constants.append((self._slot(op.results[0]), constant_tensor(op.attributes["value"], op.results[0].type), ipu_of(op)))
            elif name == "poplar.host_stream":
                shape, dtype = list(ir.RankedTensorType(ir.TypeAttr(op.attributes["type"]).value).shape), None
                element = ir.RankedTensorType(ir.TypeAttr(op.attributes["type"]).value).element_type
                dtype = kernels.torch_dtype(element)
                info_s = StreamInfo(kernels.attr(op, "name"), kernels.attr(op, "direction"), tuple(shape), dtype)
                self.streams[info_s.name] = info_s
            elif name == "poplar.function":
                self._functions[kernels.attr(op, "name")] = []  # decoded below, calls may come first
            elif name == "poplar.program_sequence" and kernels.attr(op, "name") == "main":
                main_op = op
            elif name == "poplar.remote_buffer":
                raise KernelError("remote buffers (streaming memory) are not executed by the IPU Model yet")
            else:
                raise KernelError(f"{location_label(op.location)}: '{name}' cannot appear at graph level")
        for op in block.operations:
            op = op.operation
            if op.name == "poplar.function":
                self._decode_function(op)
        # Variables that outlive a run (not the per-run inputs and output anchors).
        self._persistent_slots = [(name, slot) for name, slot in self._variable_slots.items()
                                  if self.variables[name].kind not in ("input", "output", "activation")]
        if main_op is None:
            raise KernelError("the graph has no 'poplar.program_sequence' named \"main\"")
        self.main = self._decode_block(main_op.regions[0].blocks[0])
        if self._staged and not self._pipelined_loops:
            self.sequential_reason = "the output mode's device loop streams outputs between its steps"
            logger.warning("the pipeline stages run one micro-batch at a time: %s", self.sequential_reason)

    def _decode_function(self, function: ir.Operation) -> None:
        name = kernels.attr(function, "name")
        block = function.regions[0].blocks[0]
        plan = schedule.plan_of(function)
        scheduled = _scheduled_ops(block)
        ops = [op.operation for op in block.operations] if scheduled is None else [op for op, _ in scheduled]
        # A function with random ops numbers its calls: each call (one micro-batch) draws
        # from its own seed, so the masks do not depend on the order stages run in.
        counter = [self._count_call] if any(op.name.startswith("poplar.poprand") for op in ops) else []
        if plan is None or plan["kind"] != "pipelined" or len(plan["stage_ipus"]) < 2:
            self._functions[name].extend(counter + self._decode_block(block, ops=ops))
            return
        if scheduled is None:
            raise KernelError(f"function '{name}' has a pipelined plan but no 'pipeline.schedule': run "
                              "pipeline-schedule after poplar-build-program")
        labels = {id_of(op): stage for op, stage in scheduled}
        stages: list[int] = [0] * len(counter)  # stage 0 runs the micro-batches in order
        steps = counter + self._decode_block(block, labels, stages, ops=ops)
        self._functions[name].extend(steps)
        self._staged[name] = _StagedFunction.build(self, ops, labels, steps, stages, plan["stage_ipus"])

    def _per_micro_batch_values(self) -> set[ir.Value]:
        """Variables holding one micro-batch's data: inputs, exchange buffers, anchors."""
        return {value for value, slot in self._slots.items()
                if (info := self._variable_of_slot.get(slot)) is not None and
                holds_one_micro_batch(info.kind, info.name)}

    def _decode_block(self, block: ir.Block, labels: dict[int, int] | None = None,
                      step_stages: list[int] | None = None, ops: list[ir.Operation] | None = None) -> list[Step]:
        """Decode ``block``; with ``labels`` (op stages), ``step_stages`` receives the
        stage of each returned step, and the ops are decoded in stage order (program
        order within a stage, a valid order once pipeline-schedule accepted the
        stages), so a temporary is freed after its last use in the order the stages
        run. ``ops`` replaces the block's ops (a pipelined step's stage regions, flattened)."""
        ops = [op.operation for op in block.operations] if ops is None else list(ops)
        if labels is not None:
            ops.sort(key=lambda op: labels[id_of(op)])
        fused, skipped = _linear_fusions(ops)
        # Last use of each temporary within this block, to free it early.
        last_use: dict[int, int] = {}
        defined_here: set[int] = set()
        for index, op in enumerate(ops):
            key = id_of(op)
            operands = [] if key in skipped else list(fused[key]) if key in fused else operands_within(op)
            for operand in operands:
                last_use[self._slot(operand)] = index
            for result in op.results:
                defined_here.add(self._slot(result))
        kills: dict[int, list[int]] = {}
        constants = {slot for slot, _, _ in self._constants} | {self._slot(op.results[0]) for op in ops if op.name == "poplar.constant"}
        for slot, index in last_use.items():
            if slot in defined_here and slot not in self._variable_of_slot and slot not in constants:
                kills.setdefault(index, []).append(slot)
        in_place = self._in_place_updates(ops)
        pools = self._shared_pool_indices(ops)
        steps = []
        for index, op in enumerate(ops):
            if id_of(op) in skipped:
                continue
            if id_of(op) in fused:
                x, w, b = fused[id_of(op)]
                step = _compute(_linear_kernel(op), (self._slot(x), self._slot(w), self._slot(b)), self._slot(op.results[0]))
            elif id_of(op) in in_place:
                step = _compute(in_place[id_of(op)], tuple(self._slot(v) for v in op.operands), self._slot(op.results[0]))
            elif id_of(op) in pools:
                step = pools[id_of(op)]
            else:
                step = self._decode_op(op)
            if step is not None:
                dead = tuple(kills.get(index, ()))
                steps.append(_with_kills(step, dead) if dead else step)
                if step_stages is not None and labels is not None:
                    step_stages.append(labels[id_of(op)])
        return steps

    def _in_place_updates(self, ops: list[ir.Operation]) -> dict[int, Callable[..., torch.Tensor]]:
        """Map ops that update a variable (``v' = f(v, ...)`` whose only use is the copy of
        ``v'`` into ``v``, with nothing reading ``v`` or a view of it afterwards) run in
        place on the variable's buffer, as eager optimizers update parameters."""
        found: dict[int, Callable[..., torch.Tensor]] = {}
        position = {id_of(op): index for index, op in enumerate(ops)}
        uses: dict[ir.Value, list[ir.Operation]] = {}
        for op in ops:
            for operand in operands_within(op):
                uses.setdefault(operand, []).append(op)
        for index, op in enumerate(ops):
            if op.name != "poplar.popops_map" or not op.operands:
                continue
            kernel = kernels.in_place_expression(kernels.attr(op, "expr"))
            target = op.operands[0]
            if kernel is None or self._variable_of_slot.get(self._slot(target)) is None:
                continue
            copies = [u for u in uses.get(op.results[0], []) if u.name == "poplar.program_copy" and u.operands[1] == target]
            if len(copies) != 1 or target.type != op.results[0].type or target in list(op.operands)[1:]:
                continue
            copy = copies[0]  # other users read the new value, which is what the buffer then holds
            if any(user.name == "pipeline.stash" for value in _views_of(op.results[0], uses) for user in uses.get(value, [])):
                # A later stage reads the new value from a stash, but in a pipeline the next
                # micro-batch's update of the buffer runs first: keep a separate result.
                continue
            aliases = _views_of(target, uses)
            later = [user for value in aliases for user in uses.get(value, [])
                     if position[id_of(user)] > index and user != copy]
            if not later:
                found[id_of(op)] = kernel
        return found

    def _shared_pool_indices(self, ops: list[ir.Operation]) -> dict[int, Step]:
        """A max pool and its gradient in the same block share the argmax indices: the
        forward keeps them (as Poplar keeps the pooled tensor) instead of the gradient
        pooling the input a second time."""
        steps: dict[int, Step] = {}
        forward = {}
        keys = ("kind", "kernel", "stride", "padding", "ceil_mode")
        for op in ops:
            if op.name == "poplar.popnn_pool" and kernels.attr(op, "kind") == "max":
                forward[(op.operands[0], tuple(str(op.attributes[k]) for k in keys))] = op
        for op in ops:
            if op.name != "poplar.popnn_pool_grad" or kernels.attr(op, "kind") != "max":
                continue
            pool = forward.get((op.operands[0], tuple(str(op.attributes[k]) for k in keys)))
            if pool is None or len(kernels.attr(op, "kernel")) != 2:
                continue
            indices = len(self._slots)  # a slot no SSA value has
            self._slots[object()] = indices  # reserve the slot (keys are otherwise SSA values)
            kernel_size, stride, padding = kernels.attr(op, "kernel"), kernels.attr(op, "stride"), kernels.attr(op, "padding")
            ceil = kernels.attr(op, "ceil_mode")
            x, out = self._slot(pool.operands[0]), self._slot(pool.results[0])
            g, result = self._slot(op.operands[1]), self._slot(op.results[0])

            def pool_step(env: list, x=x, out=out, indices=indices, k=kernel_size, s=stride, p=padding, c=ceil) -> None:
                env[out], env[indices] = torch.nn.functional.max_pool2d(env[x], k, s, p, 1, c, return_indices=True)

            def grad_step(env: list, x=x, g=g, result=result, indices=indices, k=kernel_size, s=stride, p=padding, c=ceil) -> None:
                env[result] = torch.ops.aten.max_pool2d_with_indices_backward(env[g], env[x], k, s, p, [1, 1], c, env[indices])

            steps[id_of(pool)] = pool_step
            steps[id_of(op)] = grad_step
        return steps

    def _decode_op(self, op: ir.Operation) -> Step | None:
        name = op.name
        if name == "poplar.program_repeat":
            count = kernels.attr(op, "count")
            pipelined = self._pipelined_loop(op, count)
            if pipelined is not None:
                return pipelined
            body = self._decode_block(op.regions[0].blocks[0])
            return _repeat(count, body)
        if name == "poplar.program_sequence":
            return _sequence(self._decode_block(op.regions[0].blocks[0]))
        if name == "poplar.program_call":
            callee = kernels.attr(op, "callee")
            if callee not in self._functions:
                raise KernelError(f"{location_label(op.location)}: call to undefined function '{callee}'")
            return _sequence(self._functions[callee])
        if name == "poplar.program_print_tensor":
            slot, title = self._slot(op.operands[0]), kernels.attr(op, "title")

            def print_tensor(env: list) -> None:
                print(f"{title}: {env[slot].detach().cpu().numpy()}", flush=True)

            return print_tensor
        if name == "poplar.program_sync":
            return None  # the emulator runs steps in order: a sync has nothing to wait for
        if name in ("pipeline.stash", "pipeline.restore"):
            return self._decode_stash(op)
        if name in ("pipeline.send", "pipeline.recv"):
            return self._decode_channel(op)
        if name == "poplar.program_stream_copy":
            return self._decode_stream_copy(op)
        if name == "poplar.program_copy":
            return self._decode_copy(op)
        if name == "poplar.popops_scaled_add_to":
            dst, src = self._slot(op.operands[0]), self._slot(op.operands[1])
            scale = kernels.attr(op, "scale")
            if not tensor_type(op.operands[0])[1].is_floating_point:
                scale = int(scale)  # integer tensors take an integer alpha

            program = self

            def scaled_add(env: list) -> None:
                value = env[src]
                if program._placed:  # e.g. OutputMode.Sum: an anchor of another IPU into a total
                    value = value.to(env[dst].device)
                env[dst].add_(value, alpha=scale)

            return scaled_add
        if name == "poplar.constant":
            slot = self._slot(op.results[0])
            value = constant_tensor(op.attributes["value"], op.results[0].type)
            self._constants.append((slot, value, ipu_of(op)))
            return None
        if name == "poplar.poprand_dropout":
            return self._decode_dropout(op)
        factory = kernels.FACTORIES.get(name)
        if factory is None:
            raise KernelError(f"{location_label(op.location)}: '{name}' has no IPU Model kernel")
        try:
            fn = factory(op)
        except KernelError as error:
            raise KernelError(f"{location_label(op.location)}: {error}") from None
        ins = tuple(self._slot(v) for v in op.operands)
        if len(op.results) != 1:
            return _compute_multi(fn, ins, tuple(self._slot(r) for r in op.results))
        return _compute(fn, ins, self._slot(op.results[0]))

    def _count_call(self, env: list) -> None:
        """Number this call of a function with random ops (one micro-batch)."""
        env[self._call_slot] = self._calls
        self._calls += 1

    def set_seed(self, seed: int) -> None:
        """Seed the random ops (Options.randomSeed) and restart the call numbering."""
        self.seed = seed
        self._calls = 0

    def _decode_dropout(self, op: ir.Operation) -> Step:
        """Dropout draws its mask from a generator seeded by the program's seed, the number
        of the call (micro-batch) and the op: the same seed gives the same masks, and
        pipelined stages draw the masks they would draw one micro-batch at a time."""
        src, out, mask_slot = self._slot(op.operands[0]), self._slot(op.results[0]), self._slot(op.results[1])
        p = kernels.attr(op, "p")
        scale = 1.0 / (1.0 - p)
        program = self
        index, call = self._random_ops, self._call_slot
        self._random_ops += 1

        def dropout(env: list) -> None:
            x = env[src]
            generator = torch.Generator()
            generator.manual_seed(hash((program.seed, env[call] or 0, index)) & (2**63 - 1))
            # Drawn on the host whatever the IPU's device: the same seed gives the same masks.
            mask = torch.empty(x.shape, dtype=torch.bool).bernoulli_(1.0 - p, generator=generator).to(x.device)
            env[mask_slot] = mask
            env[out] = x * mask * scale

        return dropout

    def _decode_stash(self, op: ir.Operation) -> Step:
        """A stash keeps its micro-batch's value until the restore of the same id: each
        micro-batch runs in its own environment, so the FIFO of ``depth`` entries is the
        set of micro-batches in flight, each holding its entry in one slot."""
        held = self._slot(("stash", kernels.attr(op, "stash_id")))
        if op.name == "pipeline.stash":
            value = self._slot(op.operands[0])

            def stash(env: list) -> None:
                env[held] = env[value]

            return stash
        return _take(held, self._slot(op.results[0]))

    def _decode_channel(self, op: ir.Operation) -> Step:
        """A send gives the destination IPU its own copy of a micro-batch's value (on its
        device); the recv of the same channel in a later stage takes it."""
        channel = self._slot(("channel", kernels.attr(op, "channel")))
        if op.name == "pipeline.send":
            return self._copy_to_ipu(self._slot(op.operands[0]), channel, kernels.attr(op, "dst_ipu"))
        return _take(channel, self._slot(op.results[0]))

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
        stream = kernels.attr(op, "stream")
        slot = self._slot(op.operands[0])
        info = self.streams[stream]
        program = self
        if info.direction == "host_to_device":

            ipu = self._variable_of_slot[slot].ipu if slot in self._variable_of_slot else 0

            def read(env: list) -> None:
                value = program.io.pop(stream)
                env[slot] = value.to(program._devices[ipu]) if program._placed else value

            return read
        variable = self._variable_of_slot.get(slot)
        # Anchors are rebound, not written (see _decode_copy): their tensor is fresh each
        # iteration unless it is a persistent variable, which must be cloned.
        must_clone = variable is not None and not variable.name.startswith("anchor.")

        def write(env: list) -> None:
            value = env[slot]
            if program._placed:  # outputs reach the host
                program.io.outputs[stream].append(value.to("cpu", copy=must_clone))
            else:
                program.io.outputs[stream].append(value.clone() if must_clone else value)

        return write

    def _decode_copy(self, op: ir.Operation) -> Step:
        src, dst = self._slot(op.operands[0]), self._slot(op.operands[1])
        target = self._variable_of_slot.get(dst)
        source_variable = self._variable_of_slot.get(src)
        if target is not None and target.name.startswith("anchor.") and (source_variable is None or source_variable.kind == "input"):
            # An output anchor only feeds device-to-host copies: binding it to the fresh
            # result is the same as copying into it, without the copy.
            def bind(env: list) -> None:
                env[dst] = env[src]

            return bind

        if target is not None and target.name.startswith("exchange."):
            # An inter-IPU copy: the destination IPU gets its own copy of the data.
            return self._copy_to_ipu(src, dst, target.ipu)
        if target is not None and source_variable is None and _fresh_result(op.operands[0]):
            # Writing a fresh result (an updated weight, a new running mean) into a
            # variable: the variable takes the result's buffer instead of a copy of it,
            # and run() writes the buffer back to the device store.
            def rebind(env: list) -> None:
                env[dst] = env[src]

            return rebind

        def copy(env: list) -> None:
            env[dst].copy_(env[src])

        return copy

    def _pipelined_loop(self, op: ir.Operation, count: int) -> Step | None:
        """A loop whose body calls a staged function, then only moves its outputs, runs
        as a pipeline over ``count`` micro-batches (see :mod:`runtime.schedule`)."""
        ops = [inner.operation for inner in op.regions[0].blocks[0].operations]
        if not ops or ops[0].name != "poplar.program_call" or count < 2:
            return None
        staged = self._staged.get(kernels.attr(ops[0], "callee"))
        if staged is None or any(inner.name not in ("poplar.program_stream_copy", "poplar.popops_scaled_add_to") for inner in ops[1:]):
            return None
        tail = [step for inner in ops[1:] if (step := self._decode_op(inner)) is not None]
        anchors = [slot for slot, info in self._variable_of_slot.items() if info.name.startswith("anchor.")]
        program = self
        self._pipelined_loops += 1

        def run(env: list) -> None:
            program._run_pipeline(staged, count, tail, anchors, env)

        return run

    def _run_pipeline(self, staged: _StagedFunction, count: int, tail: list[Step], anchors: list[int], env: list) -> None:
        envs: dict[int, list] = {}
        trace = self.last_trace = []
        last = len(staged.stage_ipus) - 1
        if self._pool is None and self.num_ipus > 1:
            # Each worker emulates one IPU: the host's intra-op threads are shared out
            # between the IPUs that run at once instead of each worker using them all.
            busy = len(set(staged.stage_ipus))
            threads = max(1, torch.get_num_threads() // busy)
            self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=busy, thread_name_prefix="ipu",
                                                               initializer=torch.set_num_threads, initargs=(threads,))

        def work(t: int, items: list[tuple[int, int]]) -> None:
            for stage, mb in items:
                if stage == 0:
                    envs[mb] = list(env)
                start = time.perf_counter()
                staged.run_stage(stage, envs[mb], env)
                trace.append((t, staged.stage_ipus[stage], stage, mb, start, time.perf_counter()))

        for t, pairs in enumerate(schedule.pipelined_steps(len(staged.stage_ipus), count)):
            by_ipu: dict[int, list[tuple[int, int]]] = {}
            for stage, mb in pairs:
                by_ipu.setdefault(staged.stage_ipus[stage], []).append((stage, mb))
            # Even a step with one busy IPU runs on a worker: the host thread's own
            # intra-op threads would compete with the workers' for the cores.
            if self._pool is None:
                for items in by_ipu.values():
                    work(t, items)
            else:
                futures = [self._pool.submit(work, t, items) for items in by_ipu.values()]
                concurrent.futures.wait(futures)  # every IPU finishes its step before an error surfaces
                for future in futures:
                    future.result()
            for stage, mb in pairs:
                if stage == last:  # the micro-batch is done: move its outputs, in order
                    done = envs.pop(mb)
                    for step in tail:
                        step(done)
                    for slot in anchors:
                        env[slot] = done[slot]

    def close(self) -> None:
        """Stop the worker threads of the emulated IPUs (a later run starts new ones)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    # -- running --------------------------------------------------------------------
    def environment(self, stores: dict[int, DeviceStore]) -> list:
        env: list[Any] = [None] * len(self._slots)
        for name, slot in self._variable_slots.items():
            info = self.variables[name]
            store = stores[info.ipu]
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

    def run(self, stores: dict[int, DeviceStore], inputs: dict[str, list[torch.Tensor]]) -> dict[str, list[torch.Tensor]]:
        """Run ``main`` once; ``inputs`` holds each input stream's elements in order."""
        output_names = [s.name for s in self.streams.values() if s.direction == "device_to_host"]
        self.io = HostIO(inputs, output_names)
        env = self.environment(stores)
        try:
            for step in self.main:
                step(env)
            for name, slot in self._persistent_slots:  # rebound variables: keep their new buffers
                stores[self.variables[name].ipu].tensors[name] = env[slot]
            return self.io.outputs
        finally:
            self.io = None


def _take(held: int, result: int) -> Step:
    """A restore or a recv: ``result`` takes the micro-batch's value held in slot ``held``."""
    def take(env: list) -> None:
        env[result] = env[held]
        env[held] = None

    return take


def _scheduled_ops(block: ir.Block) -> list[tuple[ir.Operation, int]] | None:
    """The ops of the ``pipeline.stage`` regions of a pipelined step's
    ``pipeline.schedule`` with their stage, in stage order (None without a schedule)."""
    for op in block.operations:
        op = op.operation
        if op.name == "pipeline.schedule":
            return [(inner.operation, kernels.attr(stage.operation, "stage_id"))
                    for stage in op.regions[0].blocks[0].operations
                    for inner in stage.operation.regions[0].blocks[0].operations]
    return None


def id_of(op: ir.Operation) -> int:
    """A stable key for an op within one decode (ir.Operation objects are not hashable)."""
    return hash(op)


def _producer(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _views_of(value: ir.Value, uses: dict[ir.Value, list[ir.Operation]]) -> set[ir.Value]:
    """``value`` and every view derived from it (reshape, dim_shuffle, slice, broadcast, nop)."""
    found, pending = {value}, [value]
    while pending:
        current = pending.pop()
        for user in uses.get(current, []):
            if user.name in _VIEW_OPS or (user.name == "poplar.popops_map" and ir.StringAttr(user.attributes["expr"]).value == "_1"):
                for result in user.results:
                    if result not in found:
                        found.add(result)
                        pending.append(result)
    return found


def _linear_fusions(ops: list[ir.Operation]) -> tuple[dict[int, tuple[ir.Value, ir.Value, ir.Value]], set[int]]:
    """Find ``add(reshape?(matmul(reshape?(x), dim_shuffle(w))), b)``: a linear layer.

    Poplar computes it as a matmul and a bias add; the emulator runs it as one
    ``F.linear`` (an addmm), as eager PyTorch does: same numerics, one pass less.
    Only single-use intermediates are folded, so nothing else observes them.
    """
    uses: dict[ir.Value, int] = {}
    for op in ops:
        for operand in operands_within(op):
            uses[operand] = uses.get(operand, 0) + 1
    fused: dict[int, tuple[ir.Value, ir.Value, ir.Value]] = {}
    skipped: set[int] = set()
    for op in ops:
        if op.name != "poplar.popops_add":
            continue
        lhs, bias = op.operands[0], op.operands[1]
        bias_shape = ir.RankedTensorType(bias.type).shape
        out_shape = ir.RankedTensorType(op.results[0].type).shape
        if len(bias_shape) != 1 or bias_shape[0] != out_shape[-1] or uses.get(lhs, 0) != 1:
            continue
        matmul = _producer(lhs)
        outer_reshape = None
        if matmul is not None and matmul.name == "poplar.reshape":
            outer_reshape = matmul
            inner = outer_reshape.operands[0]
            if uses.get(inner, 0) != 1:
                continue
            matmul = _producer(inner)
        if matmul is None or matmul.name != "poplar.poplin_matmul" or len(ir.RankedTensorType(matmul.operands[0].type).shape) != 2:
            continue
        shuffle = _producer(matmul.operands[1])
        if shuffle is None or shuffle.name != "poplar.dim_shuffle" or list(ir.DenseI64ArrayAttr(shuffle.attributes["permutation"])) != [1, 0]:
            continue
        # x is the matmul's 2-D operand even when the layer's input was folded into it
        # by a reshape: F.linear on 2-D is one addmm, while a non-contiguous 3-D input
        # would take a broadcast bmm. The result is reshaped back (a view).
        x = matmul.operands[0]
        if ir.RankedTensorType(bias.type).element_type != ir.RankedTensorType(op.results[0].type).element_type:
            continue
        fused[id_of(op)] = (x, shuffle.operands[0], bias)
        skipped.add(id_of(matmul))
        if outer_reshape is not None:
            skipped.add(id_of(outer_reshape))
    return fused, skipped


def _linear_kernel(op: ir.Operation) -> Callable[..., torch.Tensor]:
    """F.linear on the 2-D operand, reshaped to the add's result shape."""
    import torch.nn.functional as F

    shape = list(ir.RankedTensorType(op.results[0].type).shape)
    if len(shape) == 2:
        return F.linear
    return lambda x, w, b: F.linear(x, w, b).view(shape)


def _compute(fn: Callable[..., torch.Tensor], ins: tuple[int, ...], out: int) -> Step:
    if len(ins) == 1:
        (a,) = ins

        def unary(env: list) -> None:
            env[out] = fn(env[a])

        return unary
    if len(ins) == 2:
        a, b = ins

        def binary(env: list) -> None:
            env[out] = fn(env[a], env[b])

        return binary

    def nary(env: list) -> None:
        env[out] = fn(*[env[i] for i in ins])

    return nary


_VIEW_OPS = ("poplar.reshape", "poplar.dim_shuffle", "poplar.slice", "poplar.broadcast", "poplar.variable", "poplar.constant")


def _fresh_result(value: ir.Value) -> bool:
    """Whether ``value`` is a new buffer no other value shares (not a view or an identity)."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return False
    op = owner.operation if hasattr(owner, "operation") else owner
    if op.name in _VIEW_OPS:
        return False
    if op.name == "poplar.popops_map" and ir.StringAttr(op.attributes["expr"]).value == "_1":
        return False  # nop: returns its operand
    return True


def _compute_multi(fn: Callable[..., tuple], ins: tuple[int, ...], outs: tuple[int, ...]) -> Step:
    def multi(env: list) -> None:
        results = fn(*[env[i] for i in ins])
        for slot, value in zip(outs, results, strict=True):
            env[slot] = value

    return multi


def _with_kills(step: Step, dead: tuple[int, ...]) -> Step:
    def run_and_free(env: list) -> None:
        step(env)
        for slot in dead:
            env[slot] = None

    return run_and_free


def _sequence(steps: list[Step]) -> Step:
    def run(env: list) -> None:
        for step in steps:
            step(env)

    return run


def _repeat(count: int, steps: list[Step]) -> Step:
    def run(env: list) -> None:
        for _ in range(count):
            for step in steps:
                step(env)

    return run


@dataclasses.dataclass
class _StagedFunction:
    """A step function cut into pipeline stages. Each micro-batch has its own
    environment; variables that outlive a micro-batch (weights, accumulators, state)
    are read from the shared environment when a stage starts and written back when it
    ends, so a stage sees the updates of the stages before it."""

    stage_ipus: list[int]
    segments: list[list[Step]]
    reads: list[tuple[int, ...]]
    writes: list[tuple[int, ...]]

    @classmethod
    def build(cls, program: Program, ops: list[ir.Operation], labels: dict[int, int], steps: list[Step],
              stages: list[int], stage_ipus: list[int]) -> _StagedFunction:
        count = len(stage_ipus)
        segments: list[list[Step]] = [[] for _ in range(count)]
        for step, stage in zip(steps, stages, strict=True):
            segments[stage].append(step)
        per_micro_batch = {program._slot(v) for v in program._per_micro_batch_values()}
        persistent = set(program._variable_of_slot) - per_micro_batch
        reads: list[set[int]] = [set() for _ in range(count)]
        writes: list[set[int]] = [set() for _ in range(count)]
        for op in ops:
            stage = labels[id_of(op)]
            operands = [program._slot(v) for v in op.operands]
            reads[stage].update(slot for slot in operands if slot in persistent)
            if op.name == "poplar.program_copy" and operands[1] in persistent:
                writes[stage].add(operands[1])
        return cls(list(stage_ipus), segments, [tuple(r) for r in reads], [tuple(w) for w in writes])

    def run_stage(self, stage: int, env: list, shared: list) -> None:
        for slot in self.reads[stage]:
            env[slot] = shared[slot]
        for step in self.segments[stage]:
            step(env)
        for slot in self.writes[stage]:
            shared[slot] = env[slot]
