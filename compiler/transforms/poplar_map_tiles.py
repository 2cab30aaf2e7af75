"""poplar-map-tiles: gives every ``poplar.variable`` a linear tile mapping.

Input: a ``poplar.graph`` (after ``poplar-build-program``) whose variables have empty
``tiles``. Output: ``tiles = array<i64: first_tile, num_tiles>`` on each variable: the
tensor is spread evenly over ``num_tiles`` consecutive tiles of its IPU, starting where
the previous variable on that IPU ended, as Poplar's ``mapTensorLinearly`` does.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.dialects.poplar.program_order import graphs_of
from ipu_mlir.support.ir_walk import tensor_bytes
from ipu_mlir.support.target import MK2

from ..pass_base import Diagnostics, ModulePass


@dataclasses.dataclass(frozen=True)
class MapTiles(ModulePass):
    """Map each poplar.variable linearly onto consecutive tiles of its IPU.

    A variable of B bytes gets min(tiles-per-ipu, ceil(B / min-bytes-per-tile)) tiles
    (at least one); successive variables start on the tile after the previous one, so
    small tensors do not all pile onto tile 0.

    Arguments:
      tiles-per-ipu: tiles of one IPU (default 1472, the Mk2 IPU).
      min-bytes-per-tile: grain below which fewer tiles are used (default 128).
    """

    name: ClassVar[str] = "poplar-map-tiles"
    tiles_per_ipu: int = MK2.tiles_per_ipu
    min_bytes_per_tile: int = MK2.min_bytes_per_tile

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        if self.tiles_per_ipu < 1 or self.min_bytes_per_tile < 1:
            diag.error(module, "poplar-map-tiles: tiles-per-ipu and min-bytes-per-tile must be >= 1")
            return
        next_tile: dict[int, int] = {}
        for graph in graphs_of(module):
            for op in graph.regions[0].blocks[0].operations:
                op = op.operation
                if op.name != "poplar.variable":
                    continue
                ipu = ir.IntegerAttr(op.attributes["ipu"]).value
                size = tensor_bytes(op.results[0].type)
                count = max(1, min(self.tiles_per_ipu, -(-size // self.min_bytes_per_tile)))
                first = next_tile.get(ipu, 0)
                if first + count > self.tiles_per_ipu:
                    first = 0
                op.attributes["tiles"] = ir.DenseI64ArrayAttr.get([first, count])
                next_tile[ipu] = (first + count) % self.tiles_per_ipu
