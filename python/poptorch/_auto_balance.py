"""``Options.autoBalancePipeline(num_ipus)`` (an ipu-mlir extension, beyond PopTorch, where
users place blocks by hand): the compiler splits a model without annotations into pipeline
stages over ``num_ipus`` IPUs at module boundaries.

How: the model is compiled once on one IPU (in training, its forward pass for inference);
the cost model's cycles of every op
(``poplar.cycles``) are summed per *unit*, the children of the model's largest
``nn.ModuleList`` / ``nn.Sequential`` (a transformer's layers), by the module path the
frontend keeps in each op's location (ops outside every unit join the unit before them,
or the first). A dynamic programme picks the contiguous split into ``num_ipus`` groups
whose slowest group has the fewest cycles, with each group's parameters (x3 in training:
gradients and optimizer state) within an IPU's memory. Each group's first unit gets a
``BeginBlock`` on IPU g (ops before the first unit run on IPU 0, everything after a block's
first unit in it), the model compiles as a pipeline (the default PipelinedExecution), and
the annotations are removed from the modules again: the chosen blocks show in the IR
(``#ipu.block``) and in ``schedule()``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import torch

from . import _logging
from .annotations import _MODULE_ATTR, BeginBlock

BLOCK_PREFIX = "auto_balance"


@dataclasses.dataclass(frozen=True)
class BalancePlan:
    """The split: per IPU, the unit paths it runs, and its estimated cycles."""

    units: list[str]
    groups: list[list[str]]
    cycles: list[int]


def _units(model: torch.nn.Module, num_ipus: int) -> list[tuple[str, torch.nn.Module]]:
    best: tuple[str, torch.nn.Module] | None = None
    for name, module in model.named_modules():
        if isinstance(module, torch.nn.ModuleList | torch.nn.Sequential) and len(module) >= num_ipus:
            if best is None or len(module) > len(best[1]):
                best = (name, module)
    if best is None:
        raise ValueError(f"autoBalancePipeline({num_ipus}): the model has no nn.ModuleList or nn.Sequential of at least "
                         f"{num_ipus} modules to split at; place its blocks by hand (poptorch.BeginBlock / Block)")
    prefix = best[0] + "." if best[0] else ""
    return [(f"{prefix}{index}", child) for index, child in enumerate(best[1])]


def split(costs: list[int], memory: list[int], groups: int, capacity: int) -> list[int]:
    """The first unit of each of ``groups`` contiguous groups minimising the largest group
    cost with every group's memory within ``capacity``; ValueError if none fits."""
    n = len(costs)
    prefix_cost = [0]
    prefix_memory = [0]
    for cost, size in zip(costs, memory, strict=True):
        prefix_cost.append(prefix_cost[-1] + cost)
        prefix_memory.append(prefix_memory[-1] + size)
    inf = float("inf")
    # best[g][i]: the least possible slowest group when units [0, i) form g groups
    best = [[inf] * (n + 1) for _ in range(groups + 1)]
    choice = [[0] * (n + 1) for _ in range(groups + 1)]
    best[0][0] = 0
    for g in range(1, groups + 1):
        for i in range(g, n + 1):
            for j in range(g - 1, i):
                if prefix_memory[i] - prefix_memory[j] > capacity or best[g - 1][j] == inf:
                    continue
                value = max(best[g - 1][j], prefix_cost[i] - prefix_cost[j])
                if value < best[g][i]:
                    best[g][i], choice[g][i] = value, j
    if best[groups][n] == inf:
        raise ValueError(f"autoBalancePipeline({groups}): no split of the {n} modules over {groups} IPUs keeps every IPU "
                         f"within its {capacity} bytes; use more IPUs or place tensors off chip")
    starts = []
    i = n
    for g in range(groups, 0, -1):
        i = choice[g][i]
        starts.append(i)
    return starts[::-1]


def plan(model: torch.nn.Module, probe: Any, num_ipus: int, capacity: int, training: bool) -> BalancePlan:
    """Split ``model`` using the cycles of ``probe`` (its one-IPU CompiledProgram)."""
    if any(_MODULE_ATTR in module.__dict__ for module in model.modules()):
        raise ValueError(f"autoBalancePipeline({num_ipus}): the model already has poptorch.BeginBlock annotations; "
                         "either place blocks by hand or let the compiler balance them, not both")
    units = _units(model, num_ipus)
    names = [name for name, _ in units]
    costs = [0] * len(units)
    current = 0
    for path, cycles in probe.cycles_by_module():
        owner = next((i for i, name in enumerate(names) if path is not None and (path == name or path.startswith(name + "."))),
                     None)
        if owner is not None:
            current = owner
        costs[current] += cycles
    factor = 3 if training else 1  # parameters, their gradients and optimizer state
    memory = [factor * sum(p.numel() * p.element_size() for p in module.parameters()) for _, module in units]
    starts = split(costs, memory, num_ipus, capacity)
    bounds = [*starts, len(units)]
    groups = [names[bounds[g]:bounds[g + 1]] for g in range(num_ipus)]
    return BalancePlan(names, groups, [sum(costs[bounds[g]:bounds[g + 1]]) for g in range(num_ipus)])


def annotate(model: torch.nn.Module, balance: BalancePlan) -> None:
    modules = dict(model.named_modules())
    for ipu, group in enumerate(balance.groups):
        BeginBlock(modules[group[0]], f"{BLOCK_PREFIX}{ipu}", ipu_id=ipu)
    _logging.logger.info("autoBalancePipeline(%d): %s", len(balance.groups), "; ".join(
        f"IPU {ipu}: {group[0]}..{group[-1]} (~{cycles} cycles)" for ipu, (group, cycles)
        in enumerate(zip(balance.groups, balance.cycles, strict=True))))


def compile_balanced(executor: Any, args: tuple, kwargs: dict[str, Any], settings: dict[str, Any],
                     description: Any) -> tuple[Any, BalancePlan]:
    """Probe-compile ``executor``'s model on one IPU (memory unchecked), split it, compile the pipeline."""
    from ipu_mlir.driver import CompileOptions, compile_program
    from ipu_mlir.support.target import default_target

    from .annotations import removeBlocks

    num_ipus = executor._options.auto_balance_ipus
    target = settings.get("target") or default_target()
    # The probe holds the whole model on one IPU, which need not fit: its memory is not checked.
    probe_settings = dict(settings, target=dataclasses.replace(target, bytes_per_tile=2**40))
    # Training probes the forward pass alone (compiled for inference): the training capture
    # keeps no module paths in its locations; backward ops cost about twice their forward ops
    # in every module alike, so the forward's proportions choose the same split.
    for key in ("gradient_accumulation", "reduction", "strategy", "auto_loss_scaling", "recompute"):
        probe_settings.pop(key, None)
    probe = compile_program(executor._model, args, kwargs, CompileOptions(**probe_settings), None)
    balance = plan(executor._model, probe, num_ipus, target.bytes_per_ipu, executor._training)
    annotate(executor._model, balance)
    try:
        compiled = compile_program(executor._model, args, kwargs, CompileOptions(**settings), description,
                                   cache_dir=executor._options.executable_cache_dir)
    finally:
        removeBlocks(executor._model)  # the user's modules stay as they were
    return compiled, balance
