"""poplar-estimate-cycles: every compute op and program step gets its estimated cycles.

Input: a ``poplar.graph`` (normally the end of the compile pipeline). Output: the same
graph with ``poplar.cycles`` (``CYCLES_ATTR``, i64) on every op of its programs and
``poplar.cycles_target`` (the target's name) on the graph. The estimates come from the
IPU target (``support/target.py``, every constant documented with its source):

- matmuls and convolutions (``poplin_matmul``, ``poplin_linear``, ``poplin_conv*``): their
  FLOPs at the AMP rate of the operand type (fp16 / bf16: 128 FLOPs per tile and cycle on
  GC200, fp32: 32) on the tiles their tensors spread over, plus the exchange of their
  operands to those tiles and one compute set (sync + vertex start);
- linear-algebra factorisations: n^3 FLOPs per matrix at the fp32 rate;
- every other compute op (elementwise maps, reductions, norms, gathers, random draws ...):
  bounded by tile memory bandwidth (bytes read + written over the tiles they spread
  over), plus one compute set; sorts take log2(n) passes;
- views (reshape, slice, dim_shuffle, broadcast, concat, reverse), variables and constants: 0;
- ``program_copy``: bytes crossing tiles over the exchange, or over the IPU-Links when the
  source and destination live on different IPUs; ``pipeline.send``: an inter-IPU copy
  over the IPU-Links (its ``pipeline.recv``: 0); stash / restore: an on-tile copy;
- matmuls and convolutions also take one compute set per extra pass the planner splits them
  into to keep their temporaries within their ``poplar.available_memory`` (default 0.6) of the
  compute tiles (``dialects/poplar/planning.py``); the members of a parallel multi-convolution
  (``poplar.multi_conv`` with plan_type "parallel") run in one compute set on shares of the
  tiles in proportion to their FLOPs (at least ``per_conv_reserved_tiles``): the group takes
  its longest member, carried by its first member (the others: 0);
- ``program_stream_copy`` and ``program_print_tensor``: host-link latency + bytes over
  the host link; a stream with a ``poplar.overlap`` is prefetched to (or drained from) the
  I/O tiles while the compute tiles work, so its copy is an exchange from those tiles;
- ``program_sync``: one on-chip barrier (internal) or a cross-IPU one (external / global);
- ``pipeline.remote_load`` / ``remote_store``, ``poplar.program_remote_load`` / ``_store``:
  Streaming Memory latency + bytes at its bandwidth; one with ``poplar.io_tiles``
  (TensorLocationSettings.useIOTilesToLoad / ToStore) goes through the I/O tiles, which
  overlap the Streaming Memory transfer with compute: an exchange from those tiles;
- collectives, over the g replicas of the op's ``#poplar.comm_group`` (rings over the
  IPU-Links, or the Gateway-Links when a group's replicas are in different IPU-PODs), plus a
  cross-IPU sync: ``gcl_all_reduce`` 2 (g - 1) / g of the bytes and a compute set,
  ``gcl_reduce_scatter`` (g - 1) / g of the input bytes and a compute set,
  ``gcl_all_gather`` (g - 1) / g of the output bytes, ``gcl_broadcast`` the bytes once
  (pipelined along the ring); a group of one replica: one compute set.

Region ops carry the cycles of one run: a function, sequence, stage or phase the sum of its
ops; ``program_call`` its callee's; ``program_repeat`` ``count`` times its body, except a
pipelined step (a function holding a ``pipeline.schedule``), whose ``count``
micro-batches take the pipeline's time steps (``m + S - 1``), each as long as the busiest
IPU's stages in it plus an external sync; ``pipeline.schedule`` carries one micro-batch
run alone (the sum of its stages). A phased step (a function with ``#pipeline.phases``, its
ops flat with ``pipeline.phase``) runs its phases one after the other, the IPUs of a phase at
once: each phase takes its busiest IPU's ops, plus an external sync after it when the step
spans several IPUs. The main ``program_sequence`` thus carries the cycles
of one host call. These are estimates of a model of the chip, not measurements.
"""

from __future__ import annotations

import dataclasses
import math
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.artifact.schedule import pipelined_steps
from ipu_mlir.dialects.pipeline import PHASE_ATTR, PHASES_ATTR
from ipu_mlir.dialects.pipeline_attrs import ipu_of
from ipu_mlir.dialects.poplar import CYCLES_ATTR, CYCLES_TARGET_ATTR, POPLAR_VIEWS, comm_group_of
from ipu_mlir.dialects.poplar.planning import HostOverlap, MultiConvPlan, overlap_of, planned_passes, read_multi_conv
from ipu_mlir.dialects.poplar.program_order import graphs_of
from ipu_mlir.support.ir_walk import tensor_bytes
from ipu_mlir.support.target import MK2, TARGETS, IpuTarget

from ..pass_base import Diagnostics, ModulePass, PassOptionError

_FREE = frozenset(POPLAR_VIEWS) | {"poplar.variable", "poplar.constant", "poplar.host_stream", "poplar.remote_buffer",
                                   "poplar.view_as_real", "poplar.view_as_complex", "pipeline.recv", "pipeline.output"}
_MATMULS = frozenset({"poplar.poplin_matmul", "poplar.poplin_linear", "poplar.poplin_matmul_acc"})
_CONVS = frozenset({"poplar.poplin_conv", "poplar.poplin_conv_grad", "poplar.poplin_conv_transpose",
                    "poplar.poplin_conv_transpose_grad"})
_SORTS = frozenset({"poplar.popops_sort_key_value", "poplar.popops_top_k", "poplar.popops_order_statistic",
                    "poplar.popops_search_sorted"})
_REGIONS = frozenset({"poplar.function", "poplar.program_sequence", "pipeline.stage", "pipeline.phase"})
_COLLECTIVES = {f"poplar.gcl_{kind}": kind for kind in ("all_reduce", "reduce_scatter", "all_gather", "broadcast")}


def _tensor_types(values: object) -> list[ir.RankedTensorType]:
    return [ir.RankedTensorType(v.type) for v in values if isinstance(v.type, ir.RankedTensorType)]


def _half(types: list[ir.RankedTensorType]) -> bool:
    return bool(types) and str(types[0].element_type) in ("f16", "bf16")


def _graph_int(op: ir.Operation, name: str) -> int:
    """Integer attribute ``name`` of the ``poplar.graph`` enclosing ``op``."""
    graph = op.parent
    while graph.name != "poplar.graph":
        graph = graph.parent
    return ir.IntegerAttr(graph.attributes[name]).value


def _value_ipu(value: ir.Value) -> int:
    owner = value.owner
    return ipu_of(owner.operation) if isinstance(owner, ir.OpView | ir.Operation) else 0


@dataclasses.dataclass
class _Estimator:
    target: IpuTarget
    replication: int
    functions: dict[str, ir.Operation]
    done: dict[str, int] = dataclasses.field(default_factory=dict)
    io_tiles: int = 0
    overlapped: frozenset[str] = frozenset()  # host streams with a poplar.overlap
    multi_convs: dict[int, list[ir.Operation]] = dataclasses.field(default_factory=dict)  # parallel groups
    multi_convs_done: set[int] = dataclasses.field(default_factory=set)

    # -- helpers -----------------------------------------------------------------------
    def tiles(self, nbytes: int) -> int:
        """Tiles a tensor of ``nbytes`` spreads over (Poplar's linear mapping with a grain)."""
        return max(1, min(self.target.tiles_per_ipu, -(-nbytes // self.target.min_bytes_per_tile)))

    def compute_set(self) -> int:
        return self.target.sync_cycles + self.target.compute_set_cycles

    def exchange(self, nbytes: int, tiles: int) -> int:
        return math.ceil(nbytes / (tiles * self.target.exchange_bytes_per_tile_cycle))

    def link(self, nbytes: int, link: str) -> int:
        return math.ceil(nbytes / self.target.bytes_per_cycle(link))

    # -- ops ---------------------------------------------------------------------------
    def block(self, block: ir.Block) -> int:
        return sum(self.op(op.operation) for op in block.operations)

    def function(self, name: str) -> int:
        if name not in self.done:
            self.done[name] = 0  # a recursive call (none exist) would count once
            self.done[name] = self.op(self.functions[name]) if name in self.functions else 0
        return self.done[name]

    def op(self, op: ir.Operation) -> int:
        cycles = self._cycles(op)
        op.attributes[CYCLES_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(cycles))
        return int(cycles)

    def _cycles(self, op: ir.Operation) -> int:
        name = op.name
        t = self.target
        if name == "poplar.function" and PHASES_ATTR in op.attributes:
            return sum(self.phased(block) for block in op.regions[0].blocks)  # no block: runs nothing
        if name in _REGIONS:
            return sum(self.block(block) for region in op.regions for block in region.blocks)
        if name == "pipeline.schedule":
            return self.block(op.regions[0].blocks[0])
        if name == "poplar.program_call":
            return self.function(ir.StringAttr(op.attributes["callee"]).value)
        if name == "poplar.program_repeat":
            return self.repeat(op)
        if name in _FREE:
            return 0
        operands, results = _tensor_types(op.operands), _tensor_types(op.results)
        moved = [tensor_bytes(x) for x in operands + results]
        if name == "poplar.program_copy":
            size = tensor_bytes(op.operands[0].type)
            if _value_ipu(op.operands[0]) != _value_ipu(op.operands[1]):
                return t.external_sync_cycles + self.link(size, "ipu_link")
            return t.sync_cycles + self.exchange(size, self.tiles(size))
        if name == "pipeline.send":
            return t.external_sync_cycles + self.link(tensor_bytes(op.operands[0].type), "ipu_link")
        if name == "poplar.program_stream_copy" and ir.StringAttr(op.attributes["stream"]).value in self.overlapped:
            return t.sync_cycles + self.exchange(sum(moved), self.tiles(sum(moved)))  # from / to the I/O tiles
        if name in ("poplar.program_stream_copy", "poplar.program_print_tensor"):
            return t.host_latency_cycles + self.link(sum(moved), "host")
        if name == "poplar.program_sync":
            kind = ir.StringAttr(op.attributes["kind"]).value
            return t.sync_cycles if kind == "internal" else t.external_sync_cycles
        if name in ("pipeline.remote_load", "pipeline.remote_store", "poplar.program_remote_load",
                    "poplar.program_remote_store"):
            if "poplar.io_tiles" in op.attributes:  # the I/O tiles move it while the compute tiles work
                return t.sync_cycles + self.exchange(sum(moved), self.tiles(sum(moved)))
            return t.streaming_latency_cycles + self.link(sum(moved), "streaming")
        if name in _COLLECTIVES:
            return self.collective(op)
        tiles = self.tiles(max(moved, default=0))
        if name in _MATMULS or name in _CONVS:
            group = read_multi_conv(op)
            if group is not None and group["plan_type"] is MultiConvPlan.PARALLEL:
                return self.parallel_multi_conv(op, group["group"])
            passes = planned_passes(op, t.bytes_per_tile * (t.tiles_per_ipu - self.io_tiles))
            return passes * self.compute_set() + self.matmul_work(op, tiles)
        if name.startswith("poplar.poplin_") and operands and operands[0].rank >= 2:
            n = operands[0].shape[-1]
            matrices = math.prod(operands[0].shape[:-2])
            return self.compute_set() + math.ceil(n ** 3 * matrices / (t.flops_per_tile_cycle(False) * tiles))
        passes = 1
        if name in _SORTS and operands and operands[0].rank:
            passes = max(1, math.ceil(math.log2(max(2, operands[0].shape[-1]))))
        return self.compute_set() + math.ceil(passes * sum(moved) / (tiles * t.memory_bytes_per_tile_cycle))

    def matmul_work(self, op: ir.Operation, tiles: int) -> int:
        """A matmul's or convolution's AMP cycles on ``tiles`` tiles, plus the exchange of its operands."""
        operands, results = _tensor_types(op.operands), _tensor_types(op.results)
        rate = self.target.flops_per_tile_cycle(_half(operands))
        flops = self.matmul_flops(op, operands, results)
        return math.ceil(flops / (rate * tiles)) + self.exchange(sum(tensor_bytes(x) for x in operands), tiles)

    def parallel_multi_conv(self, op: ir.Operation, group: int) -> int:
        """A parallel multi-convolution: one compute set (with the most passes any member needs)
        in which each member works on its share of the tiles; the group takes its longest
        member, carried by the first member to run."""
        if group in self.multi_convs_done:
            return 0  # a later member: its time is in the first member's
        self.multi_convs_done.add(group)
        members = self.multi_convs.get(group, [op])
        t = self.target
        compute_tiles = t.tiles_per_ipu - self.io_tiles
        flops = [self.matmul_flops(m, _tensor_types(m.operands), _tensor_types(m.results)) for m in members]
        total = sum(flops) or 1
        reserved = max((read_multi_conv(m).get("per_conv_reserved_tiles", 1) for m in members), default=1)
        longest = 0
        for member, work in zip(members, flops, strict=True):
            alone = self.tiles(max((tensor_bytes(x) for x in _tensor_types(member.operands) + _tensor_types(member.results)),
                                   default=0))
            share = max(1, min(alone, max(reserved, compute_tiles * work // total)))
            longest = max(longest, self.matmul_work(member, share))
        passes = max(planned_passes(m, t.bytes_per_tile * compute_tiles) for m in members)
        return passes * self.compute_set() + longest

    def collective(self, op: ir.Operation) -> int:
        """A GCL collective over the replicas of each of its groups (see the module docstring)."""
        t = self.target
        group = comm_group_of(op)
        size = group.group_size(self.replication)
        if size == 1:  # the replica alone: a copy (or a reduction of one value) on its tiles
            return self.compute_set()
        # Replica r holds IPUs [r n, (r + 1) n): a group spanning two Pods crosses the Gateway-Links.
        per_replica = _graph_int(op, "num_ipus")
        pods = max(len({rank * per_replica // t.ipus_per_pod for rank in ranks}) for ranks in group.groups(self.replication))
        link = "gw_link" if pods > 1 else "ipu_link"
        moved = tensor_bytes(op.operands[0].type)
        share = (size - 1) / size
        kind = _COLLECTIVES[op.name]
        if kind == "all_reduce":
            return self.compute_set() + t.external_sync_cycles + self.link(math.ceil(2 * share * moved), link)
        if kind == "reduce_scatter":
            return self.compute_set() + t.external_sync_cycles + self.link(math.ceil(share * moved), link)
        if kind == "all_gather":
            return t.external_sync_cycles + self.link(math.ceil(share * tensor_bytes(op.results[0].type)), link)
        return t.external_sync_cycles + self.link(moved, link)  # broadcast

    @staticmethod
    def matmul_flops(op: ir.Operation, operands: list[ir.RankedTensorType], results: list[ir.RankedTensorType]) -> int:
        """2 x (output elements) x (the contraction length of each)."""
        out = math.prod(results[0].shape) if results else 0
        if op.name in _MATMULS:
            depth = operands[0].shape[-1] if operands and operands[0].rank else 1
        elif op.name in ("poplar.poplin_conv", "poplar.poplin_conv_transpose"):
            weight = operands[1]  # [Cout, Cin / g, k...] (transpose: [Cin, Cout / g, k...])
            depth = math.prod(weight.shape) // max(1, weight.shape[0] if op.name == "poplar.poplin_conv" else weight.shape[1])
        else:  # a convolution's gradient (grad, input, weights): one forward-sized convolution per gradient
            grad, weight = operands[0], operands[2]
            passes = sum(1 for x in results if x.rank >= 3)
            return 2 * math.prod(grad.shape) * (math.prod(weight.shape) // max(1, weight.shape[0])) * passes
        return 2 * out * depth

    def phased(self, block: ir.Block) -> int:
        """A phased step: phase after phase, each as long as its busiest IPU (ops without a
        phase run on their own, in program order)."""
        busy: dict[int, dict[int, int]] = {}  # phase -> IPU -> cycles
        alone = 0
        for op in block.operations:
            op = op.operation
            cycles = self.op(op)
            if PHASE_ATTR in op.attributes:
                phase = busy.setdefault(ir.IntegerAttr(op.attributes[PHASE_ATTR]).value, {})
                phase[ipu_of(op)] = phase.get(ipu_of(op), 0) + cycles
            else:
                alone += cycles
        ipus = {ipu for phase in busy.values() for ipu in phase}
        sync = self.target.external_sync_cycles if len(ipus) > 1 else 0
        return alone + sum(max(phase.values()) + sync for phase in busy.values())

    def repeat(self, op: ir.Operation) -> int:
        count = ir.IntegerAttr(op.attributes["count"]).value
        total = 0
        for inner in [inner for block in op.regions[0].blocks for inner in block.operations]:
            inner = inner.operation
            cycles = self.op(inner)
            schedule = self.pipelined_schedule(inner)
            if schedule is None:
                total += count * cycles
            else:  # the micro-batches of a pipelined step overlap over its stages
                total += count * (cycles - ir.IntegerAttr(schedule.attributes[CYCLES_ATTR]).value)
                total += self.pipeline_makespan(schedule, count)
        return total

    def pipelined_schedule(self, op: ir.Operation) -> ir.Operation | None:
        """The ``pipeline.schedule`` of a pipelined step that ``op`` calls, if any."""
        if op.name != "poplar.program_call":
            return None
        function = self.functions.get(ir.StringAttr(op.attributes["callee"]).value)
        if function is None:
            return None
        for inner in [inner for block in function.regions[0].blocks for inner in block.operations]:
            if inner.operation.name == "pipeline.schedule" and ir.StringAttr(inner.attributes["kind"]).value == "pipelined":
                return inner.operation
        return None

    def pipeline_makespan(self, schedule: ir.Operation, micro_batches: int) -> int:
        stages: dict[int, tuple[int, int]] = {}  # stage -> (ipu, cycles)
        for stage in schedule.regions[0].blocks[0].operations:
            stage = stage.operation
            if stage.name == "pipeline.stage":
                stages[ir.IntegerAttr(stage.attributes["stage_id"]).value] = (
                    ir.IntegerAttr(stage.attributes["ipu_id"]).value, ir.IntegerAttr(stage.attributes[CYCLES_ATTR]).value)
        total = 0
        for step in pipelined_steps(len(stages), micro_batches):
            busy: dict[int, int] = {}
            for stage, _ in step:
                ipu, cycles = stages[stage]
                busy[ipu] = busy.get(ipu, 0) + cycles
            total += max(busy.values(), default=0) + self.target.external_sync_cycles
        return total


@dataclasses.dataclass(frozen=True)
class EstimateCycles(ModulePass):
    """Annotate every compute op and program step with its estimated IPU cycles (poplar.cycles).

    Arguments:
      target: the IPU target whose numbers the estimates use (ipu-model-mk2, ipu-model-bow, ipu-model-small).
      io-tiles: tiles of each IPU set aside for overlapped host I/O, not computing (default 0).
    """

    name: ClassVar[str] = "poplar-estimate-cycles"
    target: str = MK2.name
    io_tiles: int = 0

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        if self.target not in TARGETS:
            raise PassOptionError(f"pass '{self.name}': unknown target '{self.target}' (targets: {', '.join(TARGETS)})")
        target = TARGETS[self.target]
        for graph in graphs_of(module):
            replication = ir.IntegerAttr(graph.attributes["replication_factor"]).value
            functions = {ir.StringAttr(op.attributes["name"]).value: op.operation
                         for op in graph.regions[0].blocks[0].operations if op.operation.name == "poplar.function"}
            if not 0 <= self.io_tiles < target.tiles_per_ipu:  # a located error, as every option value the pass checks
                diag.error(module, f"{self.name}: io-tiles must be in [0, {target.tiles_per_ipu}) (the target's tiles "
                                   f"per IPU: some tiles must compute), got {self.io_tiles}")
                return
            estimator = _Estimator(target, replication, functions, io_tiles=self.io_tiles,
                                   overlapped=_overlapped_streams(graph), multi_convs=_parallel_multi_convs(graph))
            for op in graph.regions[0].blocks[0].operations:
                op = op.operation
                if op.name == "poplar.function":
                    estimator.function(ir.StringAttr(op.attributes["name"]).value)
                elif op.name == "poplar.program_sequence":
                    estimator.op(op)
            graph.attributes[CYCLES_TARGET_ATTR] = ir.StringAttr.get(target.name)


def _overlapped_streams(graph: ir.Operation) -> frozenset[str]:
    return frozenset(ir.StringAttr(op.attributes["name"]).value for op in graph.regions[0].blocks[0].operations
                     if op.operation.name == "poplar.host_stream" and overlap_of(op.operation) is not HostOverlap.NO_OVERLAP)


def _parallel_multi_convs(graph: ir.Operation) -> dict[int, list[ir.Operation]]:
    """The members of each parallel multi-convolution, by group."""
    groups: dict[int, list[ir.Operation]] = {}

    def visit(op: ir.Operation) -> ir.WalkResult:
        entries = read_multi_conv(op)
        if entries is not None and entries["plan_type"] is MultiConvPlan.PARALLEL:
            groups.setdefault(entries["group"], []).append(op)
        return ir.WalkResult.ADVANCE

    graph.walk(visit)
    return groups
