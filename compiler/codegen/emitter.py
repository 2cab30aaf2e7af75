"""``ipu-translate --poplar-to-cpp``: a ``poplar.graph`` as one self-contained C++17
translation unit written against the public Poplar SDK API.

The unit has ``buildGraph`` (codelets, one virtual graph per IPU, every variable with its
tile mapping from the ``tiles`` plan, the host FIFOs, a host write per variable the host
provides, each ``poplar.function`` as a ``poplar::Function``, the main program as
Sequence / Repeat / Copy / Call / Sync) and a ``main`` that attaches a device, builds and
loads the engine, connects each stream to a host buffer read from / written to
``DIR/<stream>.bin``, writes the weights from ``DIR/weights.bin`` (the host-provided
variables of ``#poplar.interface`` in order, raw little-endian elements) and runs. The
compute ops are emitted by ``compute.py``; every op is preceded by a comment with its
source location. An op without an emission is a :class:`CodegenError` naming it. This
module reads only the poplar dialect and never imports torch.
"""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects.poplar import interface_of
from ipu_mlir.support.ir_walk import attr_value

from . import compute_gcl, compute_histogram, compute_linalg, compute_linalg2, compute_lu, compute_random, compute_scatter, compute_sorting, compute_training  # noqa: F401  (register their ops' emissions)
from . import compute_ctc, compute_fft, compute_host  # noqa: F401  (register their ops' emissions)
from .compute import EMITTERS
from .compute_fft import is_complex
from .compute_random import RANDOM_OPS
from .cpp_pool import POOL_HELPERS
from .cpp_text import HELPERS, MAIN, RANDOM_SEED, cstr, location_of, sanitize
from .emit_program import ProgramEmitter
from .errors import CodegenError

_PTYPES = {"f32": "FLOAT", "f16": "HALF", "i32": "INT", "ui32": "UNSIGNED_INT", "i64": "LONGLONG", "i1": "BOOL", "i8": "CHAR"}
_SKIPPED = {"poplar.variable", "poplar.host_stream", "poplar.constant", "poplar.remote_buffer"}  # declared in the graph part
# the ops this module emits itself: the graph, its declarations and the program structure
STRUCTURAL_OPS = frozenset({"poplar.graph", "poplar.function", "poplar.program_sequence", "poplar.program_repeat", "poplar.program_if",
                            "poplar.program_remote_load", "poplar.program_remote_store",
                            "poplar.program_call", "poplar.program_copy", "poplar.program_stream_copy",
                            "poplar.program_print_tensor", "poplar.program_sync", *_SKIPPED})


def emitted_op_names() -> frozenset[str]:
    """Every poplar op name that has a C++ emission (structural or compute)."""
    return STRUCTURAL_OPS | frozenset(EMITTERS)


def emit_cpp(module: ir.Module) -> str:
    """The C++ of the module's one ``poplar.graph``; CodegenError if there is not exactly one
    or an op has no emission."""
    graphs = [op.operation for op in module.body.operations if op.operation.name == "poplar.graph"]
    if len(graphs) != 1:
        raise CodegenError(f"expected one 'poplar.graph' in the module, found {len(graphs)}: run the poplar pipeline first")
    return _GraphEmitter(graphs[0]).emit()


def _draws(op: Any) -> bool:
    """Whether any op nested in ``op`` is a random draw (poprand)."""
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                if inner.operation.name in RANDOM_OPS or _draws(inner.operation):
                    return True
    return False


class _GraphEmitter(ProgramEmitter):
    def __init__(self, graph: Any) -> None:
        self.graph_op = graph
        self.num_ipus = self._int(graph, "num_ipus", 1)
        self.tiles_per_ipu = self._int(graph, "tiles_per_ipu", 1472)
        self.replicas = self._int(graph, "replication_factor", 1)
        self.uses_gcl = False  # set by the emission of a collective (compute_gcl.py): include GCL
        self.uses_random = _draws(graph)  # poprand: a seed the host writes, set at the start of the main program
        self._seeded = False
        self.names: dict[Any, str] = {}
        self.ipus: dict[Any, int] = {}
        self.used: set[str] = set()
        self.streams: dict[str, tuple[str, str, int]] = {}  # name -> (direction, type, elements)
        self.functions: dict[str, Any] = {}
        self.remote_buffers: dict[str, str] = {}  # remote buffer name -> C++ variable
        self.channels: dict[str, str] = {}  # pipeline send/recv channel -> tensor
        self.prog = "prog"
        # what an emission adds outside the program (compute_*.py): headers after the PopLibs ones,
        # declarations before the unit's anonymous namespace (extern "C" hooks), helper functions
        # by name (emitted once) and main's lines before engine.run
        self.includes: list[str] = []
        self.declarations: list[str] = []
        self.helpers: dict[str, tuple[str, ...]] = {}
        self.before_run: list[str] = []
        try:
            self.interface = interface_of(graph)
        except ValueError as error:
            raise CodegenError(str(error)) from None

    # -- helpers used by compute.py --------------------------------------------------
    @staticmethod
    def _int(op: Any, name: str, default: int) -> int:
        return ir.IntegerAttr(op.attributes[name]).value if name in op.attributes else default

    def attr(self, op: Any, name: str) -> Any:
        op = op.operation
        if name not in op.attributes:
            raise CodegenError(f"{self.where(op)}: '{op.name}' has no attribute '{name}'")
        return attr_value(op.attributes[name])

    def fresh(self, stem: str) -> str:
        index = 0
        while f"{stem}{index}" in self.used:
            index += 1
        self.used.add(f"{stem}{index}")
        return f"{stem}{index}"

    def define(self, value: Any, stem: str = "t", ipu: int | None = None) -> str:
        name = self.fresh(stem)
        self.names[value] = name
        owner = value.owner
        if ipu is None and hasattr(owner, "attributes") and "pipeline.ipu" in owner.attributes:
            ipu = ir.IntegerAttr(owner.attributes["pipeline.ipu"]).value
        self.ipus[value] = ipu if ipu is not None else 0
        return name

    def name(self, value: Any) -> str:
        if value not in self.names:
            raise CodegenError(f"a value used before the emitter defined it: {value}")
        return self.names[value]

    def shape(self, value: Any) -> list[int]:
        return list(ir.RankedTensorType(value.type).shape)

    def ptype(self, value: Any) -> str:
        element = str(ir.RankedTensorType(value.type).element_type)
        if is_complex(value):
            raise CodegenError(f"a {element} value has no Poplar type (Poplar holds it as a FLOAT tensor of (real, imaginary) "
                               "pairs, which only the FFT ops, view_as_real / view_as_complex, copies and streams use)")
        if element not in _PTYPES:
            raise CodegenError(f"element type {element} has no Poplar type in the emitter (emitted: {', '.join(_PTYPES)})")
        return _PTYPES[element]

    def storage(self, value: Any) -> tuple[str, list[int]]:
        """The Poplar element type and shape of the tensor holding ``value``: a complex<f32>
        tensor is a FLOAT tensor with a trailing dimension of 2 holding (real, imaginary)
        pairs, the layout view_as_real gives and complex64 has in host memory."""
        if is_complex(value):
            element = str(ir.ComplexType(ir.RankedTensorType(value.type).element_type).element_type)
            if element != "f32":
                raise CodegenError(f"complex<{element}> values have no Poplar type in the emitter (emitted: complex<f32>)")
            return "FLOAT", [*self.shape(value), 2]
        return self.ptype(value), self.shape(value)

    def ipu_of(self, op: Any) -> int:
        op = op.operation
        if "pipeline.ipu" in op.attributes:
            return ir.IntegerAttr(op.attributes["pipeline.ipu"]).value
        return next((self.ipus.get(v, 0) for v in op.operands), 0)

    def graph(self, op: Any) -> str:
        return f"ipu[{self.ipu_of(op)}]"

    def where(self, op: Any) -> str:
        return f"'{op.operation.name}' at {location_of(op.operation)}"

    def body(self, op: Any) -> Any:
        """The block of ``op``'s first region; a CodegenError naming the op when the region has
        none (an empty region is not an empty body: a body with no ops is one empty block)."""
        region = op.operation.regions[0]
        if len(region.blocks) == 0:
            what = f" '{self.attr(op, 'name')}'" if "name" in op.operation.attributes else ""
            raise CodegenError(f"{self.where(op)}{what} has an empty region (no block), so it has no body to emit; "
                               "give it a block (an empty body is one block with no ops)")
        return region.blocks[0]

    def debug(self, op: Any, suffix: str = "") -> str:
        name = op.operation.name.removeprefix("poplar.")
        return cstr(f"{name}/{suffix}" if suffix else name)

    # -- the unit --------------------------------------------------------------------
    def emit(self) -> str:
        body = self._graph_body()
        prologue = self._prologue()
        if self.uses_gcl:  # the collectives' library, after the PopLibs headers
            prologue.insert(prologue.index("#include <popnn/codelets.hpp>") + 1, "#include <gcl/Collectives.hpp>")
            prologue[2] = prologue[2].replace("-lpopnn", "-lpopnn -lgcl")
        main = self._main()
        for header in reversed(list(dict.fromkeys(self.includes))):
            prologue.insert(prologue.index("#include <popnn/codelets.hpp>") + 1, header)
        at = prologue.index("namespace {")
        prologue[at:at] = self.declarations
        for helper in self.helpers.values():
            prologue += helper
        at = main.index("    engine.run(0);")
        main[at:at] = self.before_run
        if self.uses_random:  # poprand, and the seed main writes before running
            prologue.insert(prologue.index("#include <popnn/codelets.hpp>") + 1, "#include <poprand/RandomGen.hpp>")
            prologue.insert(prologue.index("#include <poprand/RandomGen.hpp>") + 1, "#include <poprand/codelets.hpp>")
            prologue[2] = prologue[2].replace("-lpopnn", "-lpopnn -lpoprand")
            at = next(i for i, line in enumerate(main) if "One host buffer per stream" in line)
            main[at:at] = list(RANDOM_SEED)
        return "\n".join(prologue + body + main) + "\n"

    def _prologue(self) -> list[str]:
        lines = [
            "// Generated by ipu-translate --poplar-to-cpp from a poplar.graph: a Poplar/PopLibs C++17 program.",
            f"// {self.num_ipus} IPU(s) x {self.replicas} replica(s), {self.tiles_per_ipu} tiles per IPU. Build against the Poplar SDK, e.g.",
            "//   g++ -std=c++17 program.cpp -lpoplar -lpopops -lpoplin -lpopnn -o program",
            "// Run: ./program DIR (reads DIR/weights.bin and DIR/<stream>.bin of each host-to-device",
            "// stream, writes DIR/<stream>.bin of each device-to-host stream).",
            "#include <poplar/DeviceManager.hpp>",
            "#include <poplar/Engine.hpp>",
            "#include <poplar/Graph.hpp>",
            "#include <poplar/Program.hpp>",
            "#include <popops/Cast.hpp>",
            "#include <popops/DynamicSlice.hpp>",
            "#include <popops/ElementWise.hpp>",
            "#include <popops/Encoding.hpp>",
            "#include <popops/GatherStatistics.hpp>",
            "#include <popops/Pad.hpp>",
            "#include <popops/Reduce.hpp>",
            "#include <popops/ScaledAdd.hpp>",
            "#include <popops/Sort.hpp>",
            "#include <popops/TopK.hpp>",
            "#include <popops/Zero.hpp>",
            "#include <popops/codelets.hpp>",
            "#include <poplin/Convolution.hpp>",
            "#include <poplin/Cholesky.hpp>",
            "#include <poplin/MatMul.hpp>",
            "#include <poplin/TriangularSolve.hpp>",
            "#include <poplin/codelets.hpp>",
            "#include <popnn/BatchNorm.hpp>",
            "#include <popnn/LayerNorm.hpp>",
            "#include <popnn/LogSoftmax.hpp>",
            "#include <popnn/NonLinearity.hpp>",
            "#include <popnn/Pooling.hpp>",
            "#include <popnn/codelets.hpp>",
            "",
            "#include <algorithm>",
            "#include <cmath>",
            "#include <cstdio>",
            "#include <cstring>",
            "#include <fstream>",
            "#include <limits>",
            "#include <iostream>",
            "#include <string>",
            "#include <vector>",
            "",
            "namespace pe = popops::expr;",
            "",
            "namespace {",
            f"constexpr unsigned kNumIpus = {self.num_ipus};",
            f"constexpr unsigned kTilesPerIpu = {self.tiles_per_ipu};",
            f"constexpr unsigned kReplicas = {self.replicas};  // replication factor: replicas of the graph",
            "",
            *HELPERS,
            *POOL_HELPERS,
        ]
        return lines

    def _graph_body(self) -> list[str]:
        self._out: list[str] = []
        out = self._out
        out += ["// The variables the host writes before running, in the order of DIR/weights.bin.",
                "// (remote: the remote buffer holding an off-chip variable, which the host writes and reads instead)",
                "struct HostTensor { const char *handle; poplar::Type type; std::size_t elements; const char *remote = nullptr; };",
                "std::vector<HostTensor> hostWrites;",
                "// Each stream, with the number of transfers one run of the main program makes.",
                "struct HostStream { const char *handle; poplar::Type type; std::size_t elements; std::size_t transfers; bool toDevice; };",
                "std::vector<HostStream> hostStreams;",
                "",
                "std::vector<poplar::program::Program> buildGraph(poplar::Graph &graph) {",
                "  popops::addCodelets(graph);",
                "  poplin::addCodelets(graph);",
                "  popnn::addCodelets(graph);",
                *(["  poprand::addCodelets(graph);"] if self.uses_random else []),
                "  if (graph.getTarget().getNumIPUs() != kNumIpus || graph.getTarget().getTilesPerIPU() < kTilesPerIpu)",
                "    throw std::runtime_error(\"this program was compiled for \" + std::to_string(kNumIpus) + \" IPU(s) of \" +",
                "                             std::to_string(kTilesPerIpu) + \" tiles\");",
                "  if (graph.getReplicationFactor() != kReplicas)",
                "    throw std::runtime_error(\"this program was compiled for \" + std::to_string(kReplicas) + \" replica(s)\");",
                "  // One virtual graph per IPU.",
                "  std::vector<poplar::Graph> ipu;",
                "  for (unsigned i = 0; i < kNumIpus; ++i)",
                "    ipu.push_back(graph.createVirtualGraph(i * graph.getTarget().getTilesPerIPU(), (i + 1) * graph.getTarget().getTilesPerIPU()));",
                ""]
        if self.uses_random:
            self.used.add("randomSeed")
            out += ["  // The seed of the random draws (Options.randomSeed): two UNSIGNED_INT the host writes from",
                    "  // DIR/randomSeed.bin; the main program sets the device's generator from it once per run.",
                    "  poplar::Tensor randomSeed = ipu[0].addVariable(poplar::UNSIGNED_INT, {2}, \"randomSeed\");",
                    "  mapLinearly(ipu[0], randomSeed, 0, 1);",
                    "  graph.createHostWrite(\"randomSeed\", randomSeed);",
                    ""]
        block = self.body(self.graph_op)
        variables: dict[str, Any] = {}
        body_lines: list[str] = []
        for op in block.operations:
            name = op.operation.name
            if name == "poplar.variable":
                variables[self.attr(op, "name")] = op
                body_lines += self._variable(op)
            elif name == "poplar.constant":
                body_lines += self._constant(op)
            elif name == "poplar.host_stream":
                body_lines += self._stream(op)
            elif name == "poplar.remote_buffer":
                body_lines += self._remote_buffer(op)
        out += ["  " + line if line else "" for line in body_lines]
        out.append("")
        out.append("  // The variables the host provides (#poplar.interface), as host writes.")
        for kind, name in (self.interface.variables if self.interface else ()):  # a hand-written graph may have none
            if name not in variables:
                raise CodegenError(f"#poplar.interface names the host-provided {kind} '{name}', which is not a poplar.variable")
            value = variables[name].results[0]
            out.append(f"  graph.createHostWrite({cstr(name)}, {self.name(value)});")
            out.append(f"  graph.createHostRead({cstr(name + '/read')}, {self.name(value)});")
            attrs = variables[name].operation.attributes
            remote = f", {cstr(ir.StringAttr(attrs['poplar.remote_buffer']).value)}" if "poplar.remote_buffer" in attrs else ""
            out.append(f"  hostWrites.push_back({{{cstr(name)}, poplar::{self.ptype(value)}, {math.prod(self.shape(value))}{remote}}});")
        transfers = self._transfers(block)
        for stream, (direction, ptype, elements) in self.streams.items():
            out.append(f"  hostStreams.push_back({{{cstr(stream)}, poplar::{ptype}, {elements}, {transfers.get(stream, 0)}, "
                       f"{'true' if direction == 'host_to_device' else 'false'}}});")
        out.append("")
        programs: list[str] = []
        for op in block.operations:
            name = op.operation.name
            if name == "poplar.function":
                self._function(op)
            elif name == "poplar.program_sequence":
                programs.append(self._program_sequence(op))
            elif name not in _SKIPPED:
                raise CodegenError(f"{self.where(op)}: graph-level op '{name}' has no C++ emission")
        if not programs:
            raise CodegenError("the poplar.graph has no poplar.program_sequence (the main program)")
        out.append(f"  return {{{', '.join(programs)}}};")
        out += ["}", "} // namespace", ""]
        self._programs = programs
        return out

    def _variable(self, op: Any) -> list[str]:
        value = op.results[0]
        name, kind, ipu = self.attr(op, "name"), self.attr(op, "kind"), self.attr(op, "ipu")
        tiles = self.attr(op, "tiles") if "tiles" in op.operation.attributes else []
        var = self.define(value, "v_" + sanitize(name) + "_", ipu=ipu)
        where = location_of(op.operation)
        ptype, shape = self.storage(value)
        lines = [f"// {kind} '{name}'" + ("" if where == "unknown" else f" ({where})")
                 + ("; complex: (real, imaginary) pairs in the last dimension" if is_complex(value) else ""),
                 f"poplar::Tensor {var} = ipu[{ipu}].addVariable(poplar::{ptype}, "
                 f"{{{', '.join(map(str, shape))}}}, {cstr(name)});"]
        if len(tiles) == 2:
            lines.append(f"mapLinearly(ipu[{ipu}], {var}, {tiles[0]}, {tiles[1]});")
        elif math.prod(shape) > 0:
            lines.append(f"mapLinearly(ipu[{ipu}], {var}, 0, 1);  // no tile plan: tile 0")
        return lines

    def _constant(self, op: Any) -> list[str]:
        value = op.results[0]
        dense = ir.DenseElementsAttr(op.operation.attributes["value"])
        ptype, shape = self._f64_as_float(op) or self.ptype(value), self.shape(value)
        ipu = self.attr(op, "ipu")
        var = self.define(value, "c", ipu=ipu)
        ctype = {"FLOAT": "float", "INT": "int", "LONGLONG": "long long", "BOOL": "bool", "UNSIGNED_INT": "unsigned"}.get(ptype)
        if ctype is None:
            raise CodegenError(f"{self.where(op)}: a {ptype} constant has no emission")
        dims = "{" + ", ".join(map(str, shape)) + "}"
        fp = ptype == "FLOAT"
        if dense.is_splat:
            v = dense.get_splat_value()
            v = ir.FloatAttr(v).value if fp else ir.IntegerAttr(v).value
            return [f"// constant",
                    f"poplar::Tensor {var} = ipu[{ipu}].addConstant<{ctype}>(poplar::{ptype}, {dims}, {self._literal(v, ptype)});",
                    f"mapLinearly(ipu[{ipu}], {var}, 0, 1);"]
        items = ir.DenseFPElementsAttr(dense) if fp else ir.DenseIntElementsAttr(dense)
        values = ", ".join(self._literal(items[i], ptype) for i in range(len(items)))
        data = self.fresh("data")
        return [f"// constant",
                f"static const {ctype} {data}[] = {{{values}}};",
                f"poplar::Tensor {var} = ipu[{ipu}].addConstant<{ctype}>(poplar::{ptype}, {dims}, {data});",
                f"mapLinearly(ipu[{ipu}], {var}, 0, 1);"]

    def _f64_as_float(self, op: Any) -> str | None:
        """"FLOAT" for an f64 constant (a Python number argument, e.g. pinv's atol) that is only
        cast to f32: Poplar has no 64-bit float type, and rounding the value to float once in the
        constant gives the f32 the cast gives. None for other constants; an f64 constant with
        another use is a CodegenError (its users would compute in double, which the IPU cannot)."""
        value = op.results[0]
        if str(ir.RankedTensorType(value.type).element_type) != "f64":
            return None
        for use in value.uses:
            user = use.owner
            result = user.results[0].type if user.name == "poplar.popops_cast" and len(user.results) == 1 else None
            if result is None or str(ir.RankedTensorType(result).element_type) != "f32":
                raise CodegenError(f"{self.where(op)}: an f64 constant used by {self.where(user)} has no emission: Poplar has no "
                                   "64-bit float type, and an f64 constant is emitted (as a FLOAT constant) only when every "
                                   "use casts it to f32; compute in f32 instead")
        return "FLOAT"

    @staticmethod
    def _literal(v: Any, ptype: str) -> str:
        if ptype == "FLOAT":
            from .map_expr import _float_literal

            return _float_literal(float(v))
        if ptype == "BOOL":
            return "true" if v else "false"
        return f"{int(v)}LL" if ptype == "LONGLONG" else str(int(v))

    def _stream(self, op: Any) -> list[str]:
        name, direction = self.attr(op, "name"), self.attr(op, "direction")
        shaped = ir.RankedTensorType(ir.TypeAttr(op.operation.attributes["type"]).value)
        element = str(shaped.element_type)
        elements = math.prod(shaped.shape)
        if element == "complex<f32>":  # (real, imaginary) FLOAT pairs, as complex64 in host memory
            element, elements = "f32", 2 * elements
        if element not in _PTYPES:
            raise CodegenError(f"stream '{name}' of element type {element} has no Poplar type in the emitter")
        self.streams[name] = (direction, _PTYPES[element], elements)
        var = "s_" + sanitize(name)
        self.used.add(var)
        fifo = "addHostToDeviceFIFO" if direction == "host_to_device" else "addDeviceToHostFIFO"
        return [f"poplar::DataStream {var} = graph.{fifo}({cstr(name)}, poplar::{_PTYPES[element]}, {elements});"]

    def _remote_buffer(self, op: Any) -> list[str]:
        name, repeats = self.attr(op, "name"), self.attr(op, "repeats")
        shaped = ir.RankedTensorType(ir.TypeAttr(op.operation.attributes["type"]).value)
        element = str(shaped.element_type)
        if element not in _PTYPES:
            raise CodegenError(f"remote buffer '{name}' of element type {element} has no Poplar type in the emitter")
        var = self.fresh("r_" + sanitize(name) + "_")
        self.remote_buffers[name] = var
        return [f"// remote buffer '{name}': {repeats} x {list(shaped.shape)} in streaming memory",
                f"poplar::RemoteBuffer {var} = graph.addRemoteBuffer({cstr(name)}, poplar::{_PTYPES[element]}, "
                f"{math.prod(shaped.shape)}, {repeats});"]

    def _transfers(self, block: Any) -> dict[str, int]:
        """How many times one run of the main program copies each stream (repeat counts
        multiplied through, calls followed)."""
        functions = {self.attr(op, "name"): op for op in block.operations if op.operation.name == "poplar.function"}
        counts: dict[str, int] = {}

        def walk(ops: Any, factor: int, depth: int, branch: bool = False) -> None:
            if depth > 64:
                raise CodegenError("the program's calls nest more than 64 deep (a recursive call?)")
            for op in ops:
                name = op.operation.name
                if name == "poplar.program_stream_copy":
                    if branch:
                        raise CodegenError(f"{self.where(op)}: a host stream copy inside a poplar.program_if has no emission "
                                           "(the number of transfers would depend on the device's condition); "
                                           "stream the values outside the conditional")
                    stream = self.attr(op, "stream")
                    counts[stream] = counts.get(stream, 0) + factor
                elif name == "poplar.program_call":
                    callee = self.attr(op, "callee")
                    if callee in functions:
                        walk(self.body(functions[callee]).operations, factor, depth + 1, branch)
                elif name == "poplar.program_repeat":
                    walk(self.body(op).operations, factor * self.attr(op, "count"), depth + 1, branch)
                else:
                    for region in op.regions:
                        for b in region.blocks:
                            walk(b.operations, factor, depth + 1, branch or name == "poplar.program_if")

        main = [op for op in block.operations if op.operation.name == "poplar.program_sequence"]
        for op in main:
            walk(self.body(op).operations, 1, 0)
        return counts

    def _main(self) -> list[str]:
        return list(MAIN)
