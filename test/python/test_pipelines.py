"""The compile pipeline is a typed list of passes; its text form replays in ipu-opt."""

from __future__ import annotations

import dataclasses

import pytest

from ipu_mlir.compiler.pass_base import MlirPass, PassOptionError
from ipu_mlir.compiler.pass_pipeline import parse_pipeline, pipeline_text
from ipu_mlir.compiler.pipelines import CompileOptions, compile_pipeline
from ipu_mlir.compiler.transforms.ipu_insert_training import InsertTraining
from ipu_mlir.compiler.transforms.poplar_build_program import BuildProgram
from ipu_mlir.support.target import SMALL


def test_training_pipeline_carries_typed_options() -> None:
    options = CompileOptions(device_iterations=4, gradient_accumulation=2, reduction="sum", target=SMALL)
    steps = compile_pipeline(options, training=True)
    build = next(s for s in steps if isinstance(s, BuildProgram))
    assert (build.device_iterations, build.gradient_accumulation, build.tiles_per_ipu) == (4, 2, 4)
    insert = next(s for s in steps if isinstance(s, InsertTraining))
    assert (insert.gradient_accumulation, insert.reduction) == (2, "sum")
    assert MlirPass("canonicalize") in steps


def test_inference_pipeline_has_no_training_pass() -> None:
    steps = compile_pipeline(CompileOptions(device_iterations=2), training=False)
    assert not any(isinstance(s, InsertTraining) for s in steps)
    assert next(s for s in steps if isinstance(s, BuildProgram)).gradient_accumulation == 1


def test_pipeline_text_round_trips() -> None:
    """The text printed for a reproducer parses back to the same passes and options."""
    steps = compile_pipeline(CompileOptions(device_iterations=4, gradient_accumulation=2, output_mode="final",
                                            auto_loss_scaling=True, recompute=True), training=True)
    text = pipeline_text(steps)
    assert "poplar-build-program{device-iterations=4 gradient-accumulation=2 output-mode=final}" in text
    assert "ipu-insert-training{gradient-accumulation=2 auto-loss-scaling=true}" in text
    parsed = parse_pipeline(text)
    assert [e.ours if e.ours is not None else MlirPass(e.text) for e in parsed] == steps


def test_options_are_a_frozen_value() -> None:
    options = CompileOptions(device_iterations=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.device_iterations = 3  # type: ignore[misc]


def test_bad_pass_option_names_the_valid_ones() -> None:
    with pytest.raises(PassOptionError, match="has no option 'iterations' .*device-iterations"):
        parse_pipeline("poplar-build-program{iterations=2}")
