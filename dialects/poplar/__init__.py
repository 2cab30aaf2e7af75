"""The ``poplar`` dialect: a Poplar graph program, one op per Poplar/PopLibs construct.

A ``poplar.graph`` holds the graph's data (``variable``, ``constant``, ``remote_buffer``,
``host_stream``), its functions and its control program (``program_*``). Tensor values
follow Poplar's model: a value names a tensor of the graph; compute ops
(``popops_*``, ``poplin_*``, ``popnn_*``) and views (``reshape``, ``slice``, ...) make new
tensors, and only program ops (``program_copy``, ``program_stream_copy``) and in-place
ops (``popops_scaled_add_to``, ``popops_map_in_place``) write into existing ones. The
IPU Model runtime executes this dialect; ``ipu-translate --poplar-to-cpp`` prints it as
Poplar C++.

Op names mirror the C++ API with the namespace joined by an underscore
(``poplar.popops_add`` for ``popops::add``, ``poplar.program_copy`` for
``poplar::program::Copy``): IRDL, which defines our dialects, allows no dot inside an
op name. The ops live in one module per Poplar library (``graph``: the graph, its data
and programs; ``popops`` (and ``popops_indexing``: indexed updates and scatters; ``popops_scan``: cumulative sums, products, log-sum-exps, maxima and minima; ``popops_sort``: sort, top-k, order statistics and searchsorted; ``popops_histogram``: histograms and segment reductions), ``poplin`` (and ``poplin_linalg``: matrix
factorisations; ``poplin_linalg_solve``: solves, inverses, determinants), ``popnn``, ``poprand``, ``gcl`` (collectives across replicas, within ``#poplar.comm_group`` groups); ``custom``: custom ops, host calls and the CTC decoder; ``views``: the
methods of ``poplar::Tensor``, and ``POPLAR_VIEWS``, the one list of their names); this package re-exports all of them, with the graph's
typed attributes (``attributes``: ``#poplar.interface``, ``#poplar.memory_plan``) and the
dialect's enumerations (``enums``: variable kinds, stream directions, sync kinds, copy
modes, output modes).
"""

from torch_mlir import ir

from .attributes import (
    ANCHORS_ATTR,
    CYCLES_ATTR,
    CYCLES_TARGET_ATTR,
    INTERFACE_ATTR,
    MAIN_PROGRAM,
    MEMORY_ATTR,
    Anchor,
    AnchorAttr,
    Interface,
    InterfaceAttr,
    IpuMemory,
    IpuMemoryAttr,
    MemoryPlan,
    MemoryPlanAttr,
    anchors_of,
    cycles_of,
    interface_of,
    memory_plan_of,
)
from .base import Poplar, PoplarOp, Tensor, TensorResult, broadcast_shapes
from .control import IfOp
from .enums import CommGroupKind, CopyMode, OutputMode, StreamDirection, SyncKind, VariableKind
from .custom import MAX_VALUES as CUSTOM_MAX_VALUES
from .custom import CtcBeamSearchDecoderOp, CustomOp, CustomOpGradOp, HostCallOp
from .gcl import (
    GROUP_ATTR,
    REDUCTIONS,
    AllGatherOp,
    AllReduceOp,
    CommGroup,
    CommGroupAttr,
    CrossReplicaBroadcastOp,
    ReduceScatterOp,
    comm_group_of,
    replication_factor_of,
)
from .graph import (
    COPY_MODE_ATTR,
    PRINT_FORMAT_ATTR,
    CallOp,
    ConstantOp,
    CopyOp,
    FunctionOp,
    GraphOp,
    HostStreamOp,
    PrintTensorOp,
    RemoteBufferOp,
    RepeatOp,
    SequenceOp,
    StreamCopyOp,
    SyncOp,
    VariableOp,
    copy_mode,
    variable_kind,
)
from .poplin import ConvGradOp, ConvOp, LinearOp, MatMulOp
from .poplin_conv_transpose import ConvTransposeGradOp, ConvTransposeOp
from .poplin_linalg import (
    CholeskyOp,
    EighOp,
    EigOp,
    GeqrfOp,
    HouseholderProductOp,
    LdlFactorOp,
    LuFactorOp,
    LuUnpackOp,
    QrOp,
    SvdOp,
)
from .poplin_linalg_solve import (
    CholeskyInverseOp,
    CholeskySolveOp,
    DeterminantOp,
    InverseOp,
    LdlSolveOp,
    LuSolveOp,
    MatrixExpOp,
    OrmqrOp,
    PseudoInverseOp,
    SignLogDeterminantOp,
    SolveOp,
    TriangularSolveOp,
)
from .poplin_fft import DftComplexToComplexOp, DftComplexToRealOp, DftRealToComplexOp, ViewAsComplexOp, ViewAsRealOp
from .poplin_matmul_acc import MatMulAccOp
from .popnn import (
    NONLINEARITIES,
    NORM_STATS,
    MaxPoolGradWithIndicesOp,
    MaxPoolWithIndicesOp,
    NllLossGradOp,
    NllLossOp,
    NonLinearityGradOp,
    NonLinearityOp,
    NormGradOp,
    NormOp,
    NormTrainingOp,
    PoolGradOp,
    PoolOp,
)
from .popops import (
    IN_PLACE_UPDATES,
    MAP_FUNCTIONS,
    AddOp,
    ArgMaxOp,
    ArgMinOp,
    CastOp,
    DivOp,
    GatherOp,
    MapInPlaceOp,
    MapOp,
    MulOp,
    MultiSliceOp,
    MultiUpdateAddOp,
    PadOp,
    ReduceOp,
    ScaledAddToOp,
    SubOp,
    map_expression_args,
    parse_map_expression,
)
from .popops_indexing import MULTI_UPDATE_OPS, SCATTER_OPS, MultiUpdateOp, ScatterOp
from .popops_histogram import HISTOGRAM_CONVENTIONS, SEGMENT_REDUCTIONS, HistogramOp, SegmentReduceGradOp, SegmentReduceOp
from .popops_scan import (
    CumulativeLogSumExpOp,
    CumulativeMaxOp,
    CumulativeMinOp,
    CumulativeProductOp,
    CumulativeSumOp,
)
from .popops_sort import ORDER_STATISTICS, OrderStatisticOp, SearchSortedOp, SortKeyValueOp, TopKOp
from .poprand import DropoutOp, NormalOp, UniformOp
from .views import POPLAR_VIEWS, BroadcastOp, ConcatOp, DimShuffleOp, ReshapeOp, ReverseOp, SliceOp
from .streaming import (
    IO_TILE_MEMORY_ATTR,
    IO_TILES_ATTR,
    REMOTE_BUFFER_ATTR,
    STREAMING_ATTR,
    TENSOR_LOCATIONS_ATTR,
    RemoteLoadOp,
    RemoteStoreOp,
    TensorLocation,
    TensorLocations,
    io_tile_memory_attr,
    io_tile_memory_of,
    remote_buffer_of,
    streaming_attr,
    streaming_of,
    tensor_locations_of,
)
from .sharding import REPLICA_SHARD_ATTR, ReplicaShard, ReplicaShardAttr, replica_shard_of


def register_traits() -> None:
    """Attach the traits ``ext`` cannot declare: regions without terminators."""
    for name in ("poplar.graph", "poplar.function", "poplar.program_sequence", "poplar.program_repeat", "poplar.program_if"):
        ir.NoTerminatorTrait.attach(name)


__all__ = [
    "COPY_MODE_ATTR", "PRINT_FORMAT_ATTR", "CYCLES_ATTR", "CYCLES_TARGET_ATTR", "IN_PLACE_UPDATES", "INTERFACE_ATTR", "MAIN_PROGRAM", "MAP_FUNCTIONS", "MEMORY_ATTR", "NONLINEARITIES", "NORM_STATS",
    "POPLAR_VIEWS",
    "CopyMode", "Interface", "InterfaceAttr", "IpuMemory", "IpuMemoryAttr", "MemoryPlan", "MemoryPlanAttr", "OutputMode",
    "StreamDirection", "SyncKind", "VariableKind", "ANCHORS_ATTR", "Anchor", "AnchorAttr", "anchors_of", "copy_mode", "cycles_of", "interface_of", "memory_plan_of", "variable_kind",
    "AddOp", "AllReduceOp", "ArgMaxOp", "ArgMinOp", "BroadcastOp", "CallOp", "CastOp", "ConcatOp", "ConstantOp",
    "ConvGradOp", "ConvOp", "ConvTransposeGradOp", "ConvTransposeOp", "DftComplexToComplexOp", "DftComplexToRealOp", "DftRealToComplexOp", "ViewAsComplexOp", "ViewAsRealOp", "CopyOp", "CumulativeProductOp", "CumulativeSumOp", "DimShuffleOp", "DivOp", "DropoutOp", "FunctionOp", "GatherOp", "GraphOp", "IfOp",
    "HostStreamOp", "LinearOp", "MapInPlaceOp", "MapOp", "MatMulAccOp", "MatMulOp", "MaxPoolGradWithIndicesOp",
    "MaxPoolWithIndicesOp", "MulOp", "MultiSliceOp", "MultiUpdateAddOp", "NllLossGradOp", "NllLossOp",
    "NonLinearityGradOp", "NonLinearityOp", "NormGradOp", "NormOp", "NormTrainingOp", "NormalOp", "PadOp", "Poplar", "PoplarOp",
    "PoolGradOp", "PoolOp", "PrintTensorOp", "ReduceOp", "RemoteBufferOp", "RepeatOp", "ReshapeOp", "ScaledAddToOp",
    "SequenceOp", "SliceOp", "SortKeyValueOp", "StreamCopyOp", "SubOp", "SyncOp", "Tensor", "TensorResult", "TopKOp",
    "UniformOp", "VariableOp",
    "MULTI_UPDATE_OPS", "SCATTER_OPS", "MultiUpdateOp", "ReverseOp", "ScatterOp",
    "CumulativeLogSumExpOp", "CumulativeMaxOp", "CumulativeMinOp", "HISTOGRAM_CONVENTIONS", "HistogramOp", "ORDER_STATISTICS",
    "OrderStatisticOp", "SEGMENT_REDUCTIONS", "SearchSortedOp", "SegmentReduceGradOp", "SegmentReduceOp",
    "CholeskyInverseOp", "CholeskyOp", "CholeskySolveOp", "DeterminantOp", "EigOp", "EighOp", "GeqrfOp",
    "HouseholderProductOp", "InverseOp", "LdlFactorOp", "LdlSolveOp", "LuFactorOp", "LuSolveOp", "LuUnpackOp",
    "MatrixExpOp", "OrmqrOp", "PseudoInverseOp", "QrOp", "SignLogDeterminantOp", "SolveOp", "SvdOp", "TriangularSolveOp",
    "GROUP_ATTR", "REDUCTIONS", "AllGatherOp", "CommGroup", "CommGroupAttr", "CommGroupKind", "CrossReplicaBroadcastOp",
    "ReduceScatterOp", "comm_group_of", "replication_factor_of",
    "CUSTOM_MAX_VALUES", "CtcBeamSearchDecoderOp", "CustomOp", "CustomOpGradOp", "HostCallOp",
    "IO_TILE_MEMORY_ATTR", "IO_TILES_ATTR", "io_tile_memory_attr", "io_tile_memory_of",
    "REMOTE_BUFFER_ATTR", "STREAMING_ATTR", "TENSOR_LOCATIONS_ATTR", "RemoteLoadOp", "RemoteStoreOp", "TensorLocation",
    "TensorLocations", "remote_buffer_of", "streaming_attr", "streaming_of", "tensor_locations_of",
    "REPLICA_SHARD_ATTR", "ReplicaShard", "ReplicaShardAttr", "replica_shard_of",
    "broadcast_shapes", "map_expression_args", "parse_map_expression", "register_traits",
]
