"""Execution strategies as plain data: which blocks form which stages and phases, on which IPUs.

Users build them and pass them to ``Options.setExecutionStrategy``; the compiler's
``ipu-assign-stages`` pass reads them (``stages``, ``phases``, ``auto_stage``, ...).
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

from ipu_mlir.support.target import MAX_IPUS_PER_PROCESS

from .enums import AutoStage, Liveness, format_value

__all__ = [
    "AutoStage",
    "ExecutionStrategy",
    "Liveness",
    "ParallelPhasedExecution",
    "PipelinedExecution",
    "Phase",
    "SerialPhasedExecution",
    "ShardedExecution",
    "Stage",
]


def _ipu_index(where: str, value: Any) -> int:
    """Check an IPU index: a non-negative int (bool refused)."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(
            f"{where}({value!r}): an IPU index must be an int, got {type(value).__name__}. "
            f"Pass the IPU number, such as 0 or 1."
        )
    if value < 0:
        raise ValueError(
            f"{where}({value!r}): IPU indices start at 0, so a negative index cannot name an IPU. "
            f"Pass 0 or more."
        )
    if value >= MAX_IPUS_PER_PROCESS:
        raise ValueError(
            f"{where}({value!r}): one process drives at most {MAX_IPUS_PER_PROCESS} IPUs (indices 0 to "
            f"{MAX_IPUS_PER_PROCESS - 1}). Pass a smaller index, or use distributed execution (several "
            f"processes) for more IPUs."
        )
    return int(value)


def _flag(where: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{where}({value!r}): expected True or False, got {type(value).__name__}.")
    return value


class Stage:
    """One or more blocks (by ``user_id``) that run together on one IPU."""

    def __init__(self, *block_ids: str) -> None:
        if not block_ids:
            raise ValueError(
                "Stage(): a stage needs at least one block id, such as Stage('encoder'). "
                "Give the user_id of each Block or BeginBlock that belongs to it."
            )
        seen: set[str] = set()
        for block_id in block_ids:
            if not isinstance(block_id, str):
                raise TypeError(
                    f"Stage{block_ids!r}: block ids are the string user_ids of blocks, "
                    f"got {block_id!r} of type {type(block_id).__name__}. "
                    f"Use str(...) or the name given to Block/BeginBlock."
                )
            if block_id in seen:
                raise ValueError(
                    f"Stage{block_ids!r}: block {block_id!r} is listed twice. List each block once."
                )
            seen.add(block_id)
        self._blocks: list[str] = list(block_ids)
        self._ipu: int | None = None
        self._stage_id: int | None = None
        self._phase_id: int | None = None
        self._owner: ExecutionStrategy | None = None

    @property
    def blocks(self) -> list[str]:
        """The block ids this stage is made of (a copy)."""
        return list(self._blocks)

    @property
    def ipu_id(self) -> int | None:
        """The IPU set with ``ipu()``, or None when the compiler should choose."""
        return self._ipu

    @property
    def stage_id(self) -> int | None:
        """Position of this stage in its strategy (None until a strategy holds it)."""
        return self._stage_id

    @property
    def phase_id(self) -> int | None:
        """Index of the phase holding this stage in a phased strategy, else None."""
        return self._phase_id

    def ipu(self, ipu: int) -> Stage:
        """Run this stage on IPU ``ipu``; returns the stage so calls chain."""
        new_ipu = _ipu_index("Stage.ipu", ipu)
        old_ipu = self._ipu
        self._ipu = new_ipu
        if self._owner is not None:
            try:
                self._owner.validate()
            except ValueError:
                self._ipu = old_ipu
                raise
        return self

    def to_dict(self) -> dict[str, Any]:
        """A plain-data description (used by ``Options.toDict`` and cache keys)."""
        return {"stage_id": self._stage_id, "blocks": list(self._blocks), "ipu": self._ipu}

    def __repr__(self) -> str:
        blocks = ", ".join(repr(b) for b in self._blocks)
        ipu = "" if self._ipu is None else f".ipu({self._ipu})"
        return f"Stage({blocks}){ipu}"


class Phase:
    """Stages that run in parallel, each on its own IPU, in a phased execution."""

    def __init__(self, *arg: str | Stage) -> None:
        if not arg:
            raise ValueError(
                "Phase(): a phase needs one or more Stages, or one or more block ids "
                "(which then form a single stage)."
            )
        if all(isinstance(a, Stage) for a in arg):
            stages = list(arg)
        elif all(isinstance(a, str) for a in arg):
            stages = [Stage(*arg)]  # type: ignore[arg-type]
        else:
            kinds = ", ".join(type(a).__name__ for a in arg)
            raise TypeError(
                f"Phase({kinds}): pass either only Stage objects (one per IPU) or only block "
                f"ids (one stage made of those blocks), not a mix. "
                f"Wrap block ids in Stage(...) to combine them with other stages."
            )
        self._stages: list[Stage] = stages  # type: ignore[assignment]
        self._phase_id: int | None = None
        self._owner: ExecutionStrategy | None = None

    @property
    def stages(self) -> list[Stage]:
        """The stages of this phase (a copy of the list; the Stage objects are shared)."""
        return list(self._stages)

    @property
    def phase_id(self) -> int | None:
        """Index of this phase in its strategy (None until a strategy holds it)."""
        return self._phase_id

    def ipus(self, *ipus: int) -> Phase:
        """Give one IPU to each stage of this phase, in order; returns the phase."""
        if len(ipus) != len(self._stages):
            which = "this phase" if self._owner is None else \
                f"phase {self._phase_id} of the {self._owner._name()}"
            raise ValueError(
                f"Phase.ipus({', '.join(repr(ipu) for ipu in ipus)}): {which} has {len(self._stages)} stage(s) "
                f"({', '.join(repr(s) for s in self._stages)}) but {len(ipus)} IPU(s) were given. "
                f"Pass exactly one IPU per stage."
            )
        checked = [_ipu_index("Phase.ipus", ipu) for ipu in ipus]
        old = [stage._ipu for stage in self._stages]
        for stage, ipu in zip(self._stages, checked, strict=True):
            stage._ipu = ipu
        if self._owner is not None:
            try:
                self._owner.validate()
            except ValueError:
                for stage, ipu in zip(self._stages, old, strict=True):
                    stage._ipu = ipu
                raise
        return self

    def to_dict(self) -> dict[str, Any]:
        """A plain-data description (used by ``Options.toDict`` and cache keys)."""
        return {"phase_id": self._phase_id, "stages": [s.to_dict() for s in self._stages]}

    def __repr__(self) -> str:
        return f"Phase({', '.join(repr(s) for s in self._stages)})"


class ExecutionStrategy:
    """Base of the four execution strategies; holds the stages the compiler reads."""

    def __init__(self, stages: list[Stage], auto_stage: AutoStage | None) -> None:
        if type(self) is ExecutionStrategy:
            raise TypeError(
                "ExecutionStrategy is a base class. Use ShardedExecution, PipelinedExecution, "
                "SerialPhasedExecution or ParallelPhasedExecution."
            )
        self._auto_stage = auto_stage
        self._stages: list[Stage] = []
        self._stage_of_block: dict[str, Stage] = {}
        for stage in stages:
            self._adopt(stage)

    def _name(self) -> str:
        return type(self).__name__

    def _adopt(self, stage: Stage) -> None:
        """Record ``stage`` as the next stage, refusing reused stages and blocks."""
        if any(stage is s for s in self._stages):
            raise ValueError(
                f"{self._name()}: the same {stage!r} object is given twice. "
                f"Each position needs its own Stage; put blocks that run together in one Stage."
            )
        for block in stage._blocks:
            other = self._stage_of_block.get(block)
            if other is not None:
                raise ValueError(
                    f"{self._name()}: block {block!r} is in stage {other._stage_id} ({other!r}) "
                    f"and again in stage {len(self._stages)} ({stage!r}). "
                    f"A block belongs to exactly one stage; list it once."
                )
        stage._stage_id = len(self._stages)
        stage._owner = self
        self._stages.append(stage)
        for block in stage._blocks:
            self._stage_of_block[block] = stage

    @property
    def stages(self) -> list[Stage]:
        """The explicit stages in order (stage_id = index). Empty when ``auto_stage`` is set."""
        return list(self._stages)

    @property
    def auto_stage(self) -> AutoStage | None:
        """How stages are derived from blocks when none were given, else None."""
        return self._auto_stage

    @property
    def block_ids(self) -> list[str]:
        """Every block id named by the stages, in stage order."""
        return [block for stage in self._stages for block in stage._blocks]

    def stage(self, block_id: str) -> Stage:
        """Return the Stage holding block ``block_id``."""
        if not isinstance(block_id, str):
            raise TypeError(
                f"{self._name()}.stage({block_id!r}): block ids are strings (the user_id of a block)."
            )
        if self._auto_stage is not None:
            raise ValueError(
                f"{self._name()}.stage({block_id!r}): this strategy uses "
                f"{format_value(self._auto_stage)}, so stages are made from blocks only when the "
                f"model is compiled. Pass Stage objects or block ids to the constructor to "
                f"refer to stages by block."
            )
        found = self._stage_of_block.get(block_id)
        if found is None:
            known = ", ".join(repr(b) for b in self._stage_of_block) or "none"
            raise ValueError(
                f"{self._name()}.stage({block_id!r}): no stage holds this block. "
                f"Blocks in this strategy: {known}."
            )
        return found

    def validate(self) -> None:
        """Check the rules that do not need the model (the compiler checks the rest)."""

    def to_dict(self) -> dict[str, Any]:
        """A plain-data description (used by ``Options.toDict`` and cache keys)."""
        return {
            "type": self._name(),
            "auto_stage": None if self._auto_stage is None else format_value(self._auto_stage),
            "stages": [s.to_dict() for s in self._stages],
        }

    def __repr__(self) -> str:
        if self._auto_stage is not None:
            return f"{self._name()}({format_value(self._auto_stage)})"
        return f"{self._name()}({', '.join(repr(s) for s in self._stages)})"


def _staged_arguments(name: str, args: tuple[Any, ...]) -> tuple[list[Stage], AutoStage | None]:
    """Read the arguments of ShardedExecution / PipelinedExecution."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if not args:
        return [], AutoStage.SameAsIpu
    if any(isinstance(a, AutoStage) for a in args):
        if len(args) != 1:
            raise TypeError(
                f"{name}{args!r}: an AutoStage replaces the list of stages, so it must be the "
                f"only argument. Pass either one AutoStage or stages / block ids."
            )
        return [], args[0]
    stages: list[Stage] = []
    for arg in args:
        if isinstance(arg, Stage):
            stages.append(arg)
        elif isinstance(arg, str):
            stages.append(Stage(arg))
        else:
            raise TypeError(
                f"{name}: expected an AutoStage, Stage objects or block ids (strings), got "
                f"{arg!r} of type {type(arg).__name__}."
            )
    return stages, None


class ShardedExecution(ExecutionStrategy):
    """Run the stages one after another, one IPU busy at a time.

    Takes an AutoStage (default SameAsIpu), or Stages / block ids (one stage per id).
    """

    def __init__(self, *args: AutoStage | Stage | str) -> None:
        stages, auto_stage = _staged_arguments(type(self).__name__, args)
        super().__init__(stages, auto_stage)


class PipelinedExecution(ExecutionStrategy):
    """Pipeline the stages over their IPUs (the default strategy when blocks exist).

    Takes an AutoStage (default SameAsIpu), or Stages / block ids (one stage per id).
    """

    def __init__(self, *args: AutoStage | Stage | str) -> None:
        stages, auto_stage = _staged_arguments(type(self).__name__, args)
        super().__init__(stages, auto_stage)


def _as_phase(name: str, arg: Any) -> Phase:
    if isinstance(arg, Phase):
        return arg
    if isinstance(arg, (str, Stage)):
        return Phase(arg)
    if isinstance(arg, (list, tuple)):
        return Phase(*arg)
    raise TypeError(
        f"{name}: a phase is given as a Phase, a list of Stages or a list of block ids; "
        f"got {arg!r} of type {type(arg).__name__}."
    )


def _phase_arguments(name: str, phases: tuple[Any, ...]) -> list[Phase]:
    """Read the arguments of the phased strategies: Phases, lists of Stages or of block ids."""
    if len(phases) == 1 and isinstance(phases[0], (list, tuple)):
        inner = phases[0]
        if inner and all(isinstance(p, (Phase, list, tuple)) for p in inner):
            phases = tuple(inner)
        elif any(isinstance(p, str) for p in inner):
            raise TypeError(
                f"{name}({list(inner)!r}) is ambiguous: write [{list(inner)!r}] for one phase "
                f"holding one stage of these blocks, or one list per phase such as "
                f"[[{inner[0]!r}], ...]."
            )
    if not phases:
        raise ValueError(f"{name}(): at least one phase is needed, such as {name}(Phase('A')).")
    result = [_as_phase(name, p) for p in phases]
    for index, phase in enumerate(result):
        if any(phase is p for p in result[:index]):
            raise ValueError(
                f"{name}: the same Phase object is given as phase {result.index(phase)} and "
                f"phase {index}. Create a separate Phase for each position."
            )
    return result


class _PhasedExecution(ExecutionStrategy):
    """Common part of the serial and parallel phased strategies."""

    def __init__(self, *phases: Phase | list[Stage] | list[str]) -> None:
        self._phases = _phase_arguments(type(self).__name__, phases)
        self._separate_backward_phase = False
        self._liveness = Liveness.AlwaysLive
        super().__init__([s for p in self._phases for s in p._stages], None)
        for index, phase in enumerate(self._phases):
            phase._phase_id = index
            phase._owner = self
            for stage in phase._stages:
                stage._phase_id = index
        self.validate()

    @property
    def phases(self) -> list[Phase]:
        """The phases in forward order (phase_id = index)."""
        return list(self._phases)

    @property
    def separate_backward_phase(self) -> bool:
        """Whether the backward pass starts in a phase of its own."""
        return self._separate_backward_phase

    @property
    def tensors_liveness(self) -> Liveness:
        """Where tensors stay between phases (see ``Liveness``)."""
        return self._liveness

    def phase(self, phase: int) -> Phase:
        """Return the Phase at index ``phase``."""
        if isinstance(phase, bool) or not isinstance(phase, Integral):
            raise TypeError(f"{self._name()}.phase({phase!r}): a phase index must be an int.")
        if not 0 <= phase < len(self._phases):
            raise ValueError(
                f"{self._name()}.phase({phase}): this strategy has {len(self._phases)} phase(s), "
                f"so the index must be between 0 and {len(self._phases) - 1}."
            )
        return self._phases[int(phase)]

    def useSeparateBackwardPhase(self, use: bool = True) -> _PhasedExecution:  # noqa: N802
        """Give the backward pass its own phases instead of sharing the last forward one."""
        self._separate_backward_phase = _flag(f"{self._name()}.useSeparateBackwardPhase", use)
        return self

    def setTensorsLiveness(self, liveness: Liveness) -> _PhasedExecution:  # noqa: N802
        """Set where tensors stay between phases (see ``Liveness``)."""
        self._liveness = Liveness.parse(liveness, f"{self._name()}.setTensorsLiveness")
        return self

    def backward_phase_id(self, phase: int) -> int:
        """The phase in which the backward pass of forward phase ``phase`` runs.

        With n forward phases the backward of phase i runs in phase 2(n-1)-i, the last
        forward phase being shared; with a separate backward phase it runs in 2n-i.
        """
        self.phase(phase)
        last = len(self._phases) - 1
        return (2 * last + 2 - phase) if self._separate_backward_phase else (2 * last - phase)

    def _phase_ipus(self, phase: Phase) -> list[int] | None:
        """The IPUs of every stage of ``phase``, or None while some are still unset."""
        ipus = [stage._ipu for stage in phase._stages]
        return None if any(i is None for i in ipus) else ipus  # type: ignore[return-value]

    def validate(self) -> None:
        """Stages of one phase run in parallel, so no two of them may share an IPU."""
        for phase in self._phases:
            assigned = [s for s in phase._stages if s._ipu is not None]
            seen: dict[int, Stage] = {}
            for stage in assigned:
                clash = seen.get(stage._ipu)  # type: ignore[arg-type]
                if clash is not None:
                    raise ValueError(
                        f"{self._name()}: phase {phase._phase_id} puts {clash!r} and {stage!r} on "
                        f"IPU {stage._ipu}, but the stages of a phase run in parallel, each on its "
                        f"own IPU. Give them different IPUs, or put their blocks in one Stage."
                    )
                seen[stage._ipu] = stage  # type: ignore[index]

    def to_dict(self) -> dict[str, Any]:
        """A plain-data description (used by ``Options.toDict`` and cache keys)."""
        return {
            "type": self._name(),
            "phases": [p.to_dict() for p in self._phases],
            "separate_backward_phase": self._separate_backward_phase,
            "tensors_liveness": format_value(self._liveness),
        }

    def __repr__(self) -> str:
        return f"{self._name()}({', '.join(repr(p) for p in self._phases)})"


class SerialPhasedExecution(_PhasedExecution):
    """Run all phases one after another on the same group of IPUs."""

    def validate(self) -> None:
        """Besides the common rules, every phase must use the same set of IPUs."""
        super().validate()
        reference: tuple[Phase, list[int]] | None = None
        for phase in self._phases:
            ipus = self._phase_ipus(phase)
            if ipus is None:
                continue
            if reference is None:
                reference = (phase, ipus)
            elif sorted(ipus) != sorted(reference[1]):
                raise ValueError(
                    f"SerialPhasedExecution: phase {phase._phase_id} runs on IPUs {sorted(ipus)} "
                    f"but phase {reference[0]._phase_id} runs on IPUs {sorted(reference[1])}. "
                    f"Serial phases all run on one group of IPUs; give every phase the same IPUs, "
                    f"or use ParallelPhasedExecution to alternate between two groups."
                )


class ParallelPhasedExecution(_PhasedExecution):
    """Alternate phases between two IPU groups: even phases on even IPUs, odd on odd."""

    def sendTensorsOffChipAfterFwd(self, off_chip: bool = True) -> ParallelPhasedExecution:  # noqa: N802
        """Shorthand for ``setTensorsLiveness``: OffChipAfterFwd if True, else AlwaysLive."""
        off = _flag("ParallelPhasedExecution.sendTensorsOffChipAfterFwd", off_chip)
        self._liveness = Liveness.OffChipAfterFwd if off else Liveness.AlwaysLive
        return self

    def validate(self) -> None:
        """Besides the common rules, a stage's IPU must have the parity of its phase."""
        super().validate()
        for phase in self._phases:
            parity = phase._phase_id % 2  # type: ignore[operator]
            for stage in phase._stages:
                if stage._ipu is not None and stage._ipu % 2 != parity:
                    kind = "even" if parity == 0 else "odd"
                    raise ValueError(
                        f"ParallelPhasedExecution: {stage!r} is in phase {phase._phase_id} but on "
                        f"IPU {stage._ipu}. Phases alternate between two IPU groups, so {kind} "
                        f"phases must run on {kind} IPUs. Move the stage to an {kind} IPU, or use "
                        f"SerialPhasedExecution."
                    )
