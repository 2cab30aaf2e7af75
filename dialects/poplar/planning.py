"""Planning attributes: what the user told PopLibs' planners about one op or host stream.

They change no result, only how Poplar would plan the op: ``poplar-plan-memory`` and
``poplar-estimate-cycles`` read them. Any poplar op's verifier checks the ones it carries
(``check_planning``): each is allowed only on the ops it is about.

- ``poplar.available_memory`` (f64 in [0, 1]) on a matmul or convolution, or on an embedding
  lookup / indexing op (``popops_multi_slice``, ``popops_gather``, ``popops_multi_update``,
  ``popops_multi_update_add``: PopLibs plans their slicing with it too): the proportion of
  tile memory its temporaries may take (``poptorch.set_available_memory``, or
  ``Options.setAvailableMemoryProportion`` for every matmul and convolution of an IPU). Example:
  ``%y = "poplar.poplin_matmul"(%a, %b) {poplar.available_memory = 2.0e-01 : f64} : ...``
- ``poplar.partials_type`` (``PartialsType``: "float" or "half") on a matmul or
  convolution: the type of its partial sums (``Options.Precision.setPartialsType``,
  ``MultiConv.partialsTypes``).
- ``poplar.multi_conv`` (a dictionary) on a ``poplin_conv`` / ``poplin_conv_transpose``:
  the convolution is member ``index`` of multi-convolution ``group`` (``poptorch.MultiConv``;
  ``poplin::multiconv::convolution`` runs the group as one op), with the group's plan:
  ``plan_type`` (``MultiConvPlan``), and when set ``per_conv_reserved_tiles`` (i64 >= 1),
  ``cycle_back_off`` (f64 in [0, 1]), ``enable_conv_dithering`` (bool). Example:
  ``{poplar.multi_conv = {group = 0 : i64, index = 1 : i64, plan_type = "parallel"}}``
- ``poplar.overlap`` (``HostOverlap``) on a ``poplar.host_stream``: how far its transfers
  overlap computation (``poptorch.set_overlap_for_input`` / ``_output``); an overlapped
  stream is buffered on the IPU's I/O tiles.

One engine setting travels with the graph the same way: ``poplar.floating_point_exceptions``
(an array of ``FloatingPointException`` spellings) on a ``poplar.graph`` makes the engine
raise when a compute op meets one of them (Poplar's ``FloatingPointBehaviour``,
``Options.Precision.enableFloatingPointExceptions``); the IPU Model checks each compute op's
results only when it is set. Example:
``"poplar.graph"() ({...}) {poplar.floating_point_exceptions = ["invalid", "overflow"], ...}``
"""

from __future__ import annotations

import math

from torch_mlir import ir

from .._base import Rules, RuleViolation
from ..enums import DialectEnum

AVAILABLE_MEMORY_ATTR = "poplar.available_memory"
PARTIALS_TYPE_ATTR = "poplar.partials_type"
MULTI_CONV_ATTR = "poplar.multi_conv"
OVERLAP_ATTR = "poplar.overlap"
FP_EXCEPTIONS_ATTR = "poplar.floating_point_exceptions"

#: The proportion PopLibs plans a matmul or convolution with when none is given (PopTorch's default).
DEFAULT_AVAILABLE_MEMORY = 0.6

PLANNED_OPS = frozenset({"poplar.poplin_matmul", "poplar.poplin_linear", "poplar.poplin_matmul_acc",
                         "poplar.poplin_conv", "poplar.poplin_conv_grad", "poplar.poplin_conv_transpose",
                         "poplar.poplin_conv_transpose_grad"})
MULTI_CONV_OPS = frozenset({"poplar.poplin_conv", "poplar.poplin_conv_transpose"})
#: Embedding lookups and indexing ops: PopLibs' slice planner takes an available memory proportion.
SLICE_OPS = frozenset({"poplar.popops_multi_slice", "poplar.popops_gather", "poplar.popops_multi_update",
                       "poplar.popops_multi_update_add"})
#: The ops ``poplar.available_memory`` may go on.
AVAILABLE_MEMORY_OPS = PLANNED_OPS | SLICE_OPS


class PartialsType(DialectEnum):
    """The type of a matmul's or convolution's partial sums (``poplar.partials_type``)."""

    FLOAT = "float"
    HALF = "half"


class MultiConvPlan(DialectEnum):
    """How a multi-convolution runs its members (``poptorch.MultiConvPlanType``)."""

    PARALLEL = "parallel"  # together, in one compute set over all tiles
    SERIAL = "serial"  # one after the other, each as an independent convolution


class HostOverlap(DialectEnum):
    """How far a host stream's transfers overlap computation (``poptorch.OverlapMode``)."""

    NO_OVERLAP = "no_overlap"
    OVERLAP_ACCUMULATION_LOOP = "overlap_accumulation_loop"
    OVERLAP_DEVICE_ITERATION_LOOP = "overlap_device_iteration_loop"

    @property
    def io_buffers(self) -> int:
        """Copies of the stream's tensor its I/O tiles hold (the one in flight, then one more
        for the next device iteration)."""
        return {"no_overlap": 0, "overlap_accumulation_loop": 1, "overlap_device_iteration_loop": 2}[self.value]


class FloatingPointException(DialectEnum):
    """What raises when ``poplar.floating_point_exceptions`` lists it (Poplar's
    ``FloatingPointBehaviour`` inv / div0 / oflo)."""

    INVALID = "invalid"  # a NaN from numbers: inf - inf, 0 * inf, 0 / 0, sqrt(-1), ...
    DIVIDE_BY_ZERO = "divide_by_zero"  # an infinity from a division of numbers by zero
    OVERFLOW = "overflow"  # an infinity from numbers otherwise: the result is too large


_MULTI_CONV_KEYS = ("group", "index", "plan_type", "per_conv_reserved_tiles", "cycle_back_off", "enable_conv_dithering")


def check_planning(v: Rules, op: ir.Operation) -> None:
    """Verify the planning attributes ``op`` carries (none is required)."""
    name = op.name
    if v.has(AVAILABLE_MEMORY_ATTR):
        v.require(name in AVAILABLE_MEMORY_OPS, f"'{AVAILABLE_MEMORY_ATTR}' is only for matmuls, convolutions, "
                                               f"embedding lookups and indexing ops "
                                               f"({', '.join(sorted(AVAILABLE_MEMORY_OPS))})")
    if v.has(PARTIALS_TYPE_ATTR):
        v.require(name in PLANNED_OPS, f"'{PARTIALS_TYPE_ATTR}' is only for matmuls and convolutions "
                                      f"({', '.join(sorted(PLANNED_OPS))})")
    if v.has(AVAILABLE_MEMORY_ATTR):
        v.float(AVAILABLE_MEMORY_ATTR, min=0.0, max=1.0)
    if v.has(PARTIALS_TYPE_ATTR):
        v.enum(PARTIALS_TYPE_ATTR, PartialsType)
    if v.has(MULTI_CONV_ATTR):
        v.require(name in MULTI_CONV_OPS, f"'{MULTI_CONV_ATTR}' is only for {' and '.join(sorted(MULTI_CONV_OPS))}")
        read_multi_conv(op)
    if v.has(OVERLAP_ATTR):
        v.require(name == "poplar.host_stream", f"'{OVERLAP_ATTR}' is only for poplar.host_stream")
        v.enum(OVERLAP_ATTR, HostOverlap)
    if v.has(FP_EXCEPTIONS_ATTR):
        v.require(name == "poplar.graph", f"'{FP_EXCEPTIONS_ATTR}' is only for poplar.graph")
        for text in v.strings(FP_EXCEPTIONS_ATTR):
            try:
                FloatingPointException.parse(text, f"'{FP_EXCEPTIONS_ATTR}' entries")
            except ValueError as error:
                raise RuleViolation(str(error)) from None


def floating_point_exceptions(graph: ir.Operation) -> frozenset[FloatingPointException]:
    """The exceptions a graph's engine raises on (none when ``poplar.floating_point_exceptions`` is absent)."""
    if FP_EXCEPTIONS_ATTR not in graph.attributes:
        return frozenset()
    return frozenset(FloatingPointException.parse(ir.StringAttr(a).value, f"'{FP_EXCEPTIONS_ATTR}' entries")
                     for a in ir.ArrayAttr(graph.attributes[FP_EXCEPTIONS_ATTR]))


def read_multi_conv(op: ir.Operation) -> dict[str, object] | None:
    """The ``poplar.multi_conv`` entries of ``op`` as Python values (None when absent);
    RuleViolation naming the entry that is malformed."""
    if MULTI_CONV_ATTR not in op.attributes:
        return None
    attr = op.attributes[MULTI_CONV_ATTR]
    if not isinstance(attr, ir.DictAttr):
        raise RuleViolation(f"'{MULTI_CONV_ATTR}' must be a dictionary, got {attr}")
    attr = ir.DictAttr(attr)
    entries = {attr[i].name: attr[i].attr for i in range(len(attr))}
    unknown = sorted(set(entries) - set(_MULTI_CONV_KEYS))
    if unknown:
        raise RuleViolation(f"'{MULTI_CONV_ATTR}' has unknown entries {unknown}; the entries are {list(_MULTI_CONV_KEYS)}")
    values: dict[str, object] = {}
    for key in ("group", "index", "per_conv_reserved_tiles"):
        if key not in entries:
            if key != "per_conv_reserved_tiles":
                raise RuleViolation(f"'{MULTI_CONV_ATTR}' needs the entry '{key}'")
            continue
        value = entries[key]
        if not isinstance(value, ir.IntegerAttr) or isinstance(value, ir.BoolAttr) \
                or ir.IntegerAttr(value).value < (1 if key == "per_conv_reserved_tiles" else 0):
            low = 1 if key == "per_conv_reserved_tiles" else 0
            raise RuleViolation(f"'{MULTI_CONV_ATTR}' entry '{key}' must be an integer >= {low}, got {value}")
        values[key] = ir.IntegerAttr(value).value
    if "plan_type" not in entries or not isinstance(entries["plan_type"], ir.StringAttr):
        raise RuleViolation(f"'{MULTI_CONV_ATTR}' needs the entry 'plan_type', a string: {MultiConvPlan.choices()}")
    try:
        values["plan_type"] = MultiConvPlan.parse(ir.StringAttr(entries["plan_type"]).value,
                                                  f"'{MULTI_CONV_ATTR}' entry 'plan_type'")
    except ValueError as error:
        raise RuleViolation(str(error)) from None
    if "cycle_back_off" in entries:
        value = entries["cycle_back_off"]
        if not isinstance(value, ir.FloatAttr) or not 0.0 <= ir.FloatAttr(value).value <= 1.0:
            raise RuleViolation(f"'{MULTI_CONV_ATTR}' entry 'cycle_back_off' must be a float in [0, 1], got {value}")
        values["cycle_back_off"] = ir.FloatAttr(value).value
    if "enable_conv_dithering" in entries:
        value = entries["enable_conv_dithering"]
        if not isinstance(value, ir.BoolAttr):
            raise RuleViolation(f"'{MULTI_CONV_ATTR}' entry 'enable_conv_dithering' must be a bool, got {value}")
        values["enable_conv_dithering"] = ir.BoolAttr(value).value
    return values


def available_memory_of(op: ir.Operation, default: float = DEFAULT_AVAILABLE_MEMORY) -> float:
    """The op's ``poplar.available_memory``, else ``default``."""
    if AVAILABLE_MEMORY_ATTR in op.attributes:
        return ir.FloatAttr(op.attributes[AVAILABLE_MEMORY_ATTR]).value
    return default


def partials_type_of(op: ir.Operation) -> PartialsType | None:
    """The op's ``poplar.partials_type``, None when it has none (PopLibs' default: float)."""
    if PARTIALS_TYPE_ATTR not in op.attributes:
        return None
    return PartialsType.parse(ir.StringAttr(op.attributes[PARTIALS_TYPE_ATTR]).value, f"'{PARTIALS_TYPE_ATTR}'")


def overlap_of(op: ir.Operation) -> HostOverlap:
    """A host stream's ``poplar.overlap`` (``no_overlap`` when absent)."""
    if OVERLAP_ATTR not in op.attributes:
        return HostOverlap.NO_OVERLAP
    return HostOverlap.parse(ir.StringAttr(op.attributes[OVERLAP_ATTR]).value, f"'{OVERLAP_ATTR}'")


def working_bytes(op: ir.Operation) -> int:
    """The temporaries PopLibs' planner would give a matmul or convolution with no memory
    limit: its partial sums, one per result element, of 4 bytes (float partials, the
    default and always for float operands) or 2 (half partials of half operands)."""
    operands = [ir.RankedTensorType(v.type) for v in op.operands if isinstance(v.type, ir.RankedTensorType)]
    half = bool(operands) and str(operands[0].element_type) in ("f16", "bf16")
    partial_size = 2 if half and partials_type_of(op) is PartialsType.HALF else 4
    return sum(math.prod(ir.RankedTensorType(r.type).shape) * partial_size
               for r in op.results if isinstance(r.type, ir.RankedTensorType))


def planned_passes(op: ir.Operation, ipu_bytes: int, default: float = DEFAULT_AVAILABLE_MEMORY) -> int:
    """How many passes the planner splits the op into so that each pass's temporaries fit in
    its available memory (``poplar.available_memory``, else ``default``, of ``ipu_bytes``)."""
    budget = max(1, int(available_memory_of(op, default) * ipu_bytes))
    return max(1, -(-working_bytes(op) // budget))


def planned_temporaries(op: ir.Operation, ipu_bytes: int, default: float = DEFAULT_AVAILABLE_MEMORY) -> int:
    """The bytes the op holds while it runs beside its results: one pass's partials, less what
    its results' buffers hold (partials as wide as the result accumulate in it: f32 results,
    or half partials of half results, need nothing more)."""
    results = sum(math.prod(ir.RankedTensorType(r.type).shape) * _element_bytes(ir.RankedTensorType(r.type))
                  for r in op.results if isinstance(r.type, ir.RankedTensorType))
    return max(0, -(-working_bytes(op) // planned_passes(op, ipu_bytes, default)) - results)


def _element_bytes(type_: ir.RankedTensorType) -> int:
    width = getattr(type_.element_type, "width", 32)
    return max(1, width // 8)
