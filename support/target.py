"""The IPU targets the emulator models: Graphcore's Mk2 IPU (GC200, the default), the Bow
IPU, and small test variants.

Every number says where it comes from. "Published" numbers are Graphcore's product
specifications: the GC200 / IPU-M2000 datasheet and product brief ("M2000"), the Bow IPU /
Bow-2000 datasheet ("Bow"), and the "IPU Programmer's Guide" ("PG"). Where Graphcore
publishes no figure (latencies of syncs and host transfers, overheads of a compute set) the
value is a modelling assumption of this emulator, marked **assumed**, of the order measured
by Jia et al., "Dissecting the Graphcore IPU Architecture via Microbenchmarking" (Citadel,
2019, on the Mk1 IPU). The numbers drive tile mapping, memory planning and the cycle cost
model (``poplar-estimate-cycles``); they never change numerics.
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
    # Hardware version as poptorch.ipuHardwareVersion() reports it (2: Mk2 / Bow, both IPU2 ISA).
    hardware_version: int = 2
    # 1472 tiles per IPU (M2000 and Bow: "1472 independent IPU-Cores"; PG "Tile architecture").
    tiles_per_ipu: int = 1472
    # 6 hardware worker threads per tile (M2000: "8832 independent parallel programs" = 1472 x 6;
    # PG: barrel-scheduled worker contexts).
    threads_per_tile: int = 6
    # 624 KiB In-Processor-Memory per tile: 1472 x 624 KiB = 897 MiB ~ 900 MB per IPU
    # (M2000 and Bow: "900MB In-Processor-Memory").
    bytes_per_tile: int = 624 * KIB
    # Tile clock: GC200 1.33 GHz (M2000 datasheet, 1.325 GHz rounded); Bow 1.85 GHz (Bow).
    clock_hz: float = 1.33e9
    # Peak AMP (Accumulating Matrix Product) arithmetic per IPU: 250 TFLOP/s fp16 (fp16.16 /
    # fp16.32 "AI-Float") and 62.5 TFLOP/s fp32 (M2000: 1 PetaFLOP fp16 for 4 IPUs); Bow: 350
    # and 87.5 TFLOP/s (Bow-2000: 1.4 PetaFLOP for 4 IPUs). Per tile and cycle that is 128
    # fp16 FLOPs (64 MACs) and 32 fp32 FLOPs (16 MACs): 1472 x 1.33e9 x 128 = 250.6e12.
    peak_flops_fp16: float = 250e12
    peak_flops_fp32: float = 62.5e12
    # In-Processor-Memory bandwidth per IPU: 47.5 TB/s (M2000), 65 TB/s (Bow); about 24 bytes
    # per tile per cycle. Elementwise ops are bounded by it.
    memory_bytes_per_s: float = 47.5e12
    # All-to-all IPU-Exchange bandwidth per IPU: 11 TB/s (M2000: "IPU-Exchange 11TB/s all-to-all");
    # Bow keeps the GC200 exchange, scaled with its clock (15.3 TB/s). Bytes that cross tiles.
    exchange_bytes_per_s: float = 11e12
    # IPU-Links: 320 GB/s chip-to-chip per IPU (M2000 and Bow: "IPU-Links 320GB/s"); the model
    # charges an inter-IPU copy at this aggregate rate (optimistic for one pair of IPUs).
    ipu_link_bytes_per_s: float = 320e9
    # IPUs one IPU-Link fabric joins: an IPU-POD64 (16 M2000s, "IPU-POD64: 64 IPUs" linked by
    # IPU-Links); the collectives (gcl) of replicas in different Pods cross the Gateway-Links.
    ipus_per_pod: int = 64
    # Gateway-Links between Pods: 2 x 100 Gbps per M2000 (M2000: "IPU-Gateway ... 2x 100Gbps")
    # = 25 GB/s; **assumed** to be the bottleneck of a ring that crosses Pods.
    gw_link_bytes_per_s: float = 25e9
    # Host link: PCIe Gen4 x16 to the host, 64 GB/s both ways = 32 GB/s per direction
    # (M2000 / Bow-2000 host interface through the IPU-Gateway).
    host_bytes_per_s: float = 32e9
    # Streaming Memory (DDR4 on the IPU-Gateway, up to 448 GB per M2000): 20 GB/s per IPU
    # (M2000 product brief, Streaming Memory bandwidth shared by 4 IPUs; **assumed** per IPU).
    streaming_bytes_per_s: float = 20e9
    # **Assumed**: one on-chip barrier sync of all tiles (Jia et al. measured ~150 cycles on Mk1).
    sync_cycles: int = 150
    # **Assumed**: a sync across the IPUs of a Pod over the GW-Links / IPU-Links.
    external_sync_cycles: int = 1500
    # **Assumed**: latency of one host transfer (PCIe round trip + stream callback), ~2 us.
    host_latency_cycles: int = 2660
    # **Assumed**: latency of one Streaming Memory access through the IPU-Gateway, ~1 us.
    streaming_latency_cycles: int = 1330
    # **Assumed**: cycles to start one compute set's vertices on every tile (after its sync).
    compute_set_cycles: int = 50
    # Minimum bytes of one tensor per tile when spreading a variable linearly; below
    # this, Poplar's mapping helpers put fewer tiles on it ("grain size").
    min_bytes_per_tile: int = 128

    @property
    def bytes_per_ipu(self) -> int:
        return self.tiles_per_ipu * self.bytes_per_tile

    # Per tile and cycle rates the cost model uses (derived from the per-IPU figures above).
    def flops_per_tile_cycle(self, half: bool) -> float:
        """AMP FLOPs one tile completes per cycle, for fp16 (``half``) or fp32 operands."""
        peak = self.peak_flops_fp16 if half else self.peak_flops_fp32
        return peak / (self.tiles_per_ipu * self.clock_hz)

    @property
    def memory_bytes_per_tile_cycle(self) -> float:
        return self.memory_bytes_per_s / (self.tiles_per_ipu * self.clock_hz)

    @property
    def exchange_bytes_per_tile_cycle(self) -> float:
        return self.exchange_bytes_per_s / (self.tiles_per_ipu * self.clock_hz)

    def bytes_per_cycle(self, link: str) -> float:
        """Bytes per cycle of an off-tile ``link``: "ipu_link", "gw_link", "host" or "streaming"."""
        return {"ipu_link": self.ipu_link_bytes_per_s, "gw_link": self.gw_link_bytes_per_s, "host": self.host_bytes_per_s,
                "streaming": self.streaming_bytes_per_s}[link] / self.clock_hz

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


MK2 = IpuTarget(name="ipu-model-mk2")
BOW = IpuTarget(name="ipu-model-bow", clock_hz=1.85e9, peak_flops_fp16=350e12, peak_flops_fp32=87.5e12,
                memory_bytes_per_s=65e12, exchange_bytes_per_s=11e12 * 1.85 / 1.33,
                host_latency_cycles=3700, streaming_latency_cycles=1850)
# A few tiles per IPU so that tests can hit the memory limit with small models.
SMALL = IpuTarget(name="ipu-model-small", tiles_per_ipu=4)

TARGETS = {MK2.name: MK2, BOW.name: BOW, SMALL.name: SMALL}
TARGET_ENV_VAR = "IPU_MLIR_TARGET"


def default_target() -> IpuTarget:
    """The Mk2 target, or the one named by ``IPU_MLIR_TARGET`` (``ipu-model-bow``, ``ipu-model-small``)."""
    name = os.environ.get(TARGET_ENV_VAR, MK2.name)
    if name not in TARGETS:
        raise ValueError(f"{TARGET_ENV_VAR}={name!r} is not a known target; choose one of {', '.join(TARGETS)}")
    return TARGETS[name]


def target_named(name: str) -> IpuTarget:
    """The target called ``name`` (a key of TARGETS); the error lists the valid names."""
    if name not in TARGETS:
        raise ValueError(f"unknown IPU target {name!r}; choose one of {', '.join(TARGETS)}")
    return TARGETS[name]
