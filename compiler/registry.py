"""The pass registry: pass name -> the module and class that implement it.

Loading is lazy: ``ipu-opt`` imports a pass's module only when a pipeline names it (or
``--list-passes`` asks for summaries). Add a pass here when you add its file under
``compiler/transforms/`` and its lit test under ``test/Transforms/<name>.mlir``.
"""

from __future__ import annotations

import importlib

from .pass_base import ModulePass

# name -> "module:ClassName", relative to ipu_mlir.compiler.transforms
_PASSES: dict[str, str] = {
    "ipu-annotate-blocks": "ipu_annotate_blocks:AnnotateBlocks",
    "convert-torch-to-poplar": "convert_torch_to_poplar:ConvertTorchToPoplar",
    "convert-ipu-to-poplar": "convert_ipu_to_poplar:ConvertIpuToPoplar",
    "ipu-raise-custom-ops": "ipu_raise_custom_ops:RaiseCustomOps",
    "ipu-insert-training": "ipu_insert_training:InsertTraining",
    "ipu-assign-stages": "ipu_assign_stages:AssignStages",
    "poplar-build-program": "poplar_build_program:BuildProgram",
    "pipeline-schedule": "pipeline_schedule:PipelineSchedule",
    "poplar-place-tensors": "poplar_place_tensors:PlaceTensors",
    "poplar-map-tiles": "poplar_map_tiles:MapTiles",
    "poplar-plan-memory": "poplar_plan_memory:PlanMemory",
    "poplar-fuse-linear": "poplar_fuse_linear:FuseLinear",
    "poplar-plan-in-place": "poplar_plan_in_place:PlanInPlace",
    "poplar-share-pool-indices": "poplar_share_pool_indices:SharePoolIndices",
    "poplar-share-buffers": "poplar_share_buffers:ShareBuffers",
    "poplar-fuse-elementwise": "poplar_fuse_elementwise:FuseElementwise",
    "poplar-estimate-cycles": "poplar_estimate_cycles:EstimateCycles",
}


def pass_names() -> list[str]:
    """Every registered pass name, sorted."""
    return sorted(_PASSES)


def is_registered(name: str) -> bool:
    return name in _PASSES


def load_pass(name: str) -> type[ModulePass]:
    """The pass class registered as ``name`` (imports its module on first use)."""
    if name not in _PASSES:
        raise KeyError(name)
    module_name, class_name = _PASSES[name].split(":")
    module = importlib.import_module(f"ipu_mlir.compiler.transforms.{module_name}")
    cls = getattr(module, class_name)
    if cls.name != name:  # pragma: no cover - guards registry typos
        raise RuntimeError(f"registry maps '{name}' to {cls.__name__}, whose name is '{cls.name}'")
    return cls
