"""The enumerations of the ``ipu`` dialect, declared once: the IR spells a member by its
value, and every reader (pass or verifier) parses it with ``IpuEnum.parse``, whose error
lists the valid values. Pure Python, re-exported by ``dialects/ipu.py``."""

from .enums import DialectEnum


class IpuEnum(DialectEnum):
    """Base of the ``ipu`` dialect's enumerations (``DialectEnum``: parse and choices)."""


class RoleKind(IpuEnum):
    """What a function argument or result is (``#ipu.role``)."""

    # arguments, from the frontend
    PARAMETER = "parameter"  # a trainable weight, by its module path
    BUFFER = "buffer"  # a module buffer (BatchNorm running statistics...)
    CONSTANT = "constant"  # a tensor constant lifted by torch.export
    INPUT = "input"  # a user input, one micro-batch
    LOSS_GRAD = "loss_grad"  # the seed of the backward pass (training capture)
    # arguments, from ipu-insert-training
    HYPER = "hyper"  # a scalar hyper-parameter, "<group>.<name>" or "loss_scaling"
    OPTIMIZER_STATE = "optimizer_state"  # "<parameter>/<state>": velocity, moments, step
    ACCUMULATOR = "accumulator"  # "<parameter>/accum", or the micro-batch count
    # results, from the frontend
    BUFFER_UPDATE = "buffer_update"  # the new value of a buffer
    LOSS = "loss"
    OUTPUT = "output"  # a model output, to the host
    INPUT_UPDATE = "input_update"  # the new value of a user input the model mutated, to the host every step
    GRAD = "grad"  # the gradient of a parameter (consumed by ipu-insert-training)
    ANCHOR = "anchor"  # an internal tensor the user anchored (Options.anchorTensor), to the host under its #ipu.output_mode
    # results, from ipu-insert-training
    WEIGHT_UPDATE = "weight_update"
    STATE_UPDATE = "state_update"
    ACCUMULATOR_UPDATE = "accumulator_update"


class StrategyKind(IpuEnum):
    """The execution strategy (``poptorch.PipelinedExecution`` / ``ShardedExecution`` /
    ``SerialPhasedExecution`` / ``ParallelPhasedExecution``); the phased values are the
    ``pipeline.ScheduleKind`` they become."""

    PIPELINED = "pipelined"
    SHARDED = "sharded"
    SERIAL_PHASED = "phased_serial"
    PARALLEL_PHASED = "phased_parallel"


class AutoStage(IpuEnum):
    """How blocks become stages without explicit ones (``poptorch.AutoStage``)."""

    SAME_AS_IPU = "same_as_ipu"
    AUTO_INCREMENT = "auto_increment"


class Reduction(IpuEnum):
    """How gradients combine over micro-batches or replicas."""

    SUM = "sum"
    MEAN = "mean"


class LossReduction(IpuEnum):
    """The reduction of ``poptorch.identity_loss``."""

    SUM = "sum"
    MEAN = "mean"
    NONE = "none"


class MeanStrategy(IpuEnum):
    """When a mean over micro-batches divides: after accumulating, or as a running mean."""

    POST = "post"
    RUNNING = "running"


class LossScaleMode(IpuEnum):
    SCALE = "scale"
    UNSCALE = "unscale"


class OptimizerType(IpuEnum):
    """The optimizers with an update op (AdamW is ``adam`` with variant ``adamw``)."""

    SGD = "sgd"
    ADAM = "adam"
    RMSPROP = "rmsprop"
    LAMB = "lamb"


class SgdVariant(IpuEnum):
    SEPARATE = "separate"  # accumulator and velocity apart (PopTorch's default)
    COMBINED = "combined"  # use_combined_accum: one tensor serves as both


class AdamVariant(IpuEnum):
    ADAM = "adam"  # L2 weight decay into the gradient
    ADAMW = "adamw"  # decoupled weight decay
