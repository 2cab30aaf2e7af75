"""What Trainer(accelerator="ipu") accepts and the clear errors for what it does not."""

# ruff: noqa: E402 - the imports below need lightning, checked first
from __future__ import annotations

import pytest

pytest.importorskip("lightning", reason="lightning is not installed: pip install -e '.[test]'")

import lightning.pytorch as pl
import torch
from _models import Regressor, loader, trainer

import ipu_mlir.lightning as ipl


def test_registered_through_lightnings_registries() -> None:
    from lightning.pytorch.accelerators import AcceleratorRegistry
    from lightning.pytorch.strategies import StrategyRegistry

    assert AcceleratorRegistry["ipu"]["accelerator"] is ipl.IPUAccelerator
    assert StrategyRegistry["ipu"]["strategy"] is ipl.IPUStrategy
    t = trainer()
    assert isinstance(t.accelerator, ipl.IPUAccelerator) and isinstance(t.strategy, ipl.IPUStrategy)
    assert isinstance(t.strategy.precision_plugin, ipl.IPUPrecision)


@pytest.mark.parametrize("devices", [3, 6])
def test_devices_must_be_one_or_a_power_of_two(devices: int) -> None:
    with pytest.raises(ValueError, match=r"1 or a power of\s+two"):
        trainer(devices=devices)


def test_ipu_accelerator_without_the_ipu_strategy_says_what_to_pass() -> None:
    # Lightning 2.6 resolves strategy="auto" to a built-in strategy without consulting the
    # accelerator (accelerator_connector._choose_strategy): our error says to add strategy="ipu".
    t = pl.Trainer(accelerator="ipu", devices=1, max_epochs=1, logger=False, enable_checkpointing=False,
                   enable_progress_bar=False)
    assert type(t.strategy).__name__ == "SingleDeviceStrategy"
    with pytest.raises(ValueError, match=r"picked SingleDeviceStrategy: with strategy='auto'.*Pass\s+strategy='ipu'"):
        t.fit(Regressor(), loader())


class TwoOptimizers(Regressor):
    def configure_optimizers(self):
        return [torch.optim.SGD(self.net[0].parameters(), lr=0.1), torch.optim.SGD(self.net[2].parameters(), lr=0.1)]


def test_multiple_optimizers_are_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"optimizers; the compiled training step runs one optimizer"):
        trainer().fit(TwoOptimizers(), loader())


def test_manual_optimization_and_host_only_flags_are_clear_errors() -> None:
    class Manual(Regressor):
        def __init__(self):
            super().__init__()
            self.automatic_optimization = False

    with pytest.raises(ValueError, match="manual optimization"):
        trainer().fit(Manual(), loader())
    with pytest.raises(ValueError, match=r"gradientAccumulation\(2\)"):
        trainer(accumulate_grad_batches=2).fit(Regressor(), loader())


def test_ipuplugin_is_the_old_name_and_bad_precision_is_our_error() -> None:
    with pytest.warns(DeprecationWarning, match="IPUStrategy"):
        plugin = ipl.IPUPlugin(device_iterations=2)
    assert isinstance(plugin, ipl.IPUStrategy) and plugin.training_opts.device_iterations == 2
    with pytest.raises(ValueError, match=r"precision='bf16-mixed'.*not IPU types"):
        trainer(precision="bf16-mixed")


def test_autoreport_writes_poptorchs_profiling_report(tmp_path) -> None:
    from ipu_mlir.lightning import IPUStrategy

    strategy = IPUStrategy(autoreport=True, autoreport_dir=str(tmp_path / "report"))
    trainer(max_epochs=1, strategy=strategy).fit(Regressor(), loader(8))
    assert (tmp_path / "report" / "training" / "profile.json").is_file()
    assert (tmp_path / "report" / "training" / "profile.html").is_file()
