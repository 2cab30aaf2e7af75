"""The cross-process exchange of the replicas' collectives (``runtime/distributed.py``),
for poptorch, which reaches the runtime through the driver."""

from ipu_mlir.runtime.distributed import (
    DEFAULT_TIMEOUT,
    DistributedError,
    TorchDistributedExchange,
    barrier,
    broadcast,
)

__all__ = ["DEFAULT_TIMEOUT", "DistributedError", "TorchDistributedExchange", "barrier", "broadcast"]
