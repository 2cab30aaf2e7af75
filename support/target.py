"""The IPU target the emulator models: Graphcore's Mk2 IPU (GC200) and small test variants.

Numbers are from Graphcore's public material: the IPU-M2000 / GC200 product brief and
datasheet, and the "IPU Programmer's Guide" (tiles, threads, SRAM, exchange). They drive
tile mapping, memory planning and the cost model; they do not change numerics.
"""

from __future__ import annotations

import dataclasses
import os

KIB = 1024
# One process (one Poplar device) drives at most 64 IPUs; more need distributed execution.
MAX_IPUS_PER_PROCESS = 64


@dataclasses.dataclass(frozen=True)
class IpuTarget:
    """One IPU of the target. All emulated IPUs of a program share it."""

    name: str
    # GC200: 1472 tiles per IPU (IPU Programmer's Guide, "Tile architecture").
    tiles_per_ipu: int = 1472
    # 6 hardware worker threads per tile ("barrel" threads; Programmer's Guide).
    threads_per_tile: int = 6
    # 624 KiB In-Processor-Memory per tile: 1472 x 624 KiB = 897 MiB ~ 900 MB per IPU
    # (GC200 datasheet: "900MB In-Processor-Memory").
    bytes_per_tile: int = 624 * KIB
    # Tile clock 1.33 GHz (GC200 datasheet).
    clock_hz: float = 1.33e9
    # Peak arithmetic per IPU: 250 TFLOP/s fp16 (AI-Float) and 62.5 TFLOP/s fp32
    # (GC200 datasheet, per IPU; IPU-M2000 is 4 IPUs = 1 PFLOP/s fp16).
    peak_flops_fp16: float = 250e12
    peak_flops_fp32: float = 62.5e12
    # Exchange: 47.5 TB/s aggregate on-chip exchange bandwidth (datasheet) and
    # 320 GB/s IPU-Link bandwidth per IPU-M2000 chip-to-chip.
    exchange_bytes_per_s: float = 47.5e12
    ipu_link_bytes_per_s: float = 320e9
    # Host link: PCIe Gen4 x16, ~64 GB/s per direction per IPU-M2000 (datasheet).
    host_bytes_per_s: float = 64e9
    # Streaming memory (DDR4 on the IPU-M2000): up to 256 GB per M2000, ~20 GB/s per IPU.
    streaming_bytes_per_s: float = 20e9
    # Minimum bytes of one tensor per tile when spreading a variable linearly; below
    # this, Poplar's mapping helpers put fewer tiles on it ("grain size").
    min_bytes_per_tile: int = 128

    @property
    def bytes_per_ipu(self) -> int:
        return self.tiles_per_ipu * self.bytes_per_tile

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


MK2 = IpuTarget(name="ipu-model-mk2")
# A few tiles per IPU so that tests can hit the memory limit with small models.
SMALL = IpuTarget(name="ipu-model-small", tiles_per_ipu=4)

TARGETS = {MK2.name: MK2, SMALL.name: SMALL}
TARGET_ENV_VAR = "IPU_MLIR_TARGET"


def default_target() -> IpuTarget:
    """The Mk2 target, or the one named by ``IPU_MLIR_TARGET`` (``ipu-model-small``)."""
    name = os.environ.get(TARGET_ENV_VAR, MK2.name)
    if name not in TARGETS:
        raise ValueError(f"{TARGET_ENV_VAR}={name!r} is not a known target; choose one of {', '.join(TARGETS)}")
    return TARGETS[name]
