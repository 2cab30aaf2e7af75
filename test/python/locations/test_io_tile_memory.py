"""The memory the I/O tiles set aside (``Options.TensorLocations.numIOTiles``) in the memory
report: ``memory_per_ipu()[ipu]["io_tiles"]`` is their bytes on each IPU (0 without), not part
of the on-chip total, which the remaining compute tiles hold; the schedule text says so too."""

from __future__ import annotations

import torch

import poptorch
from helpers import FP32

MK2_TILE = 624 * 1024


def _wrapper(io_tiles: int | None):
    torch.manual_seed(0)
    model = torch.nn.Linear(16, 4)
    options = poptorch.Options()
    if io_tiles is not None:
        options.TensorLocations.numIOTiles(io_tiles)
    x = torch.randn(8, 16)
    wrapper = poptorch.inferenceModel(model, options)
    torch.testing.assert_close(wrapper(x), model(x), **FP32)
    return wrapper


def test_io_tiles_show_their_reserved_memory_apart_from_the_on_chip_total() -> None:
    plain, reserved = _wrapper(None), _wrapper(32)
    before, after = plain._compiled.memory_per_ipu()[0], reserved._compiled.memory_per_ipu()[0]
    assert before["io_tiles"] == 0
    assert after["io_tiles"] == 32 * MK2_TILE
    # The program's own bytes do not change: the I/O tiles' memory is beside them.
    assert {k: v for k, v in after.items() if k != "io_tiles"} == {k: v for k, v in before.items() if k != "io_tiles"}
    assert f"I/O tiles: 32 per IPU, {32 * MK2_TILE:,} B each IPU (set aside, not in the peak memory)" in \
        reserved.schedule()
    assert "I/O tiles" not in plain.schedule()
