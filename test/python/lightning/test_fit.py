"""Trainer(accelerator="ipu", strategy="ipu") fits, validates, tests and predicts like
accelerator="cpu", with the step functions compiled once per run."""

# ruff: noqa: E402 - the imports below need lightning, checked first
from __future__ import annotations

import pytest

pytest.importorskip("lightning", reason="lightning is not installed: pip install -e '.[test]'")

import logging

import torch
import torch.nn.functional as F
from _models import Regressor, loader, trainer
from helpers import FP32
from lightning.pytorch.loggers import Logger


class Recorder(Logger):
    """A logger that keeps every metric it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.metrics: list[dict[str, float]] = []

    @property
    def name(self) -> str:
        return "recorder"

    @property
    def version(self) -> int:
        return 0

    def log_hyperparams(self, params, *args, **kwargs) -> None:
        pass

    def log_metrics(self, metrics, step=None) -> None:
        self.metrics.append(dict(metrics))


def _same_weights(a: torch.nn.Module, b: torch.nn.Module) -> None:
    for (name, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        torch.testing.assert_close(x, y, **FP32, msg=name)


def test_fit_loss_goes_down_and_weights_match_cpu(caplog: pytest.LogCaptureFixture) -> None:
    ipu, cpu = Regressor(lr=0.02, momentum=0.9, scheduler=True), Regressor(lr=0.02, momentum=0.9, scheduler=True)
    logger = Recorder()
    with caplog.at_level(logging.INFO, logger="poptorch"):
        trainer(max_epochs=3, logger=logger, log_every_n_steps=1).fit(ipu, loader(), loader(16))
    trainer("cpu", max_epochs=3).fit(cpu, loader(), loader(16))
    epochs = [m["train_loss_epoch"] for m in logger.metrics if "train_loss_epoch" in m]
    assert len(epochs) == 3 and epochs[2] < epochs[1] < epochs[0]
    _same_weights(ipu, cpu)  # SGD with momentum, the LR halved each epoch by StepLR
    # training_step and validation_step compiled once each over 3 epochs and 3 learning rates
    assert sum("compiled StepModule" in r.getMessage() for r in caplog.records) == 2
    # self.log in training_step / validation_step reached the logger, with CPU's numbers
    steps = [m["train_loss_step"] for m in logger.metrics if "train_loss_step" in m]
    vals = [m["val_loss"] for m in logger.metrics if "val_loss" in m]
    assert len(steps) == 24 and len(vals) == 3
    first = F.mse_loss(Regressor()(loader().dataset.tensors[0][:4]), loader().dataset.tensors[1][:4]).item()
    assert steps[0] == pytest.approx(first, rel=1e-5)


def test_validate_test_predict_match_cpu() -> None:
    ipu, cpu = Regressor(), Regressor()
    trainer(max_epochs=1).fit(ipu, loader())
    trainer("cpu", max_epochs=1).fit(cpu, loader())
    t_ipu, t_cpu = trainer(), trainer("cpu")
    for method in ("validate", "test"):
        got = getattr(t_ipu, method)(ipu, loader(16), verbose=False)[0]
        want = getattr(t_cpu, method)(cpu, loader(16), verbose=False)[0]
        assert got.keys() == want.keys() and len(got) >= 1
        for key in got:
            assert got[key] == pytest.approx(want[key], rel=1e-5, abs=1e-6), key
    got = torch.cat(t_ipu.predict(ipu, loader(16)))
    want = torch.cat(t_cpu.predict(cpu, loader(16)))
    assert got.shape == (16, 1)
    torch.testing.assert_close(got, want, **FP32)


def test_device_iterations_combine_batches_and_still_match_cpu() -> None:
    from ipu_mlir.lightning import IPUStrategy

    ipu, cpu = Regressor(), Regressor()
    seen: list[int] = []

    class Spy(Regressor):
        def on_train_batch_start(self, batch, batch_idx):
            seen.append(batch[0].shape[0])

    ipu = Spy()
    strategy = IPUStrategy(device_iterations=2)
    trainer(strategy=strategy, max_epochs=1).fit(ipu, loader())
    trainer("cpu", max_epochs=1).fit(cpu, loader())
    assert seen == [8, 8, 8, 8]  # batch_size 4 x 2 device iterations: one compiled call each
    _same_weights(ipu, cpu)  # each device iteration is one optimizer step, as on CPU


class TwoLosses(Regressor):
    def training_step(self, batch, batch_idx):
        x, y = batch
        out = self(x)
        mse, l1 = F.mse_loss(out, y), F.l1_loss(out, y)
        self.log_dict({"mse": mse, "l1": l1})
        return {"loss": mse + 0.5 * l1}


def test_several_losses_combined_into_one() -> None:
    ipu, cpu = TwoLosses(), TwoLosses()
    t = trainer(max_epochs=1)
    t.fit(ipu, loader())
    trainer("cpu", max_epochs=1).fit(cpu, loader())
    _same_weights(ipu, cpu)
    assert set(t.callback_metrics) >= {"mse", "l1"}


def test_a_short_last_batch_is_dropped_with_a_warning() -> None:
    with pytest.warns(UserWarning, match=r"drops the last 2 of 18 samples.*combined batches of 4"):
        trainer().validate(Regressor(), loader(18), verbose=False)


class LogsDetached(Regressor):
    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.mse_loss(self(x), y)
        self.log("detached", loss.detach())  # the loss itself, not a second loss
        return loss


def test_logging_the_detached_loss_is_the_loss() -> None:
    ipu, cpu = LogsDetached(), LogsDetached()
    t, tc = trainer(max_epochs=1), trainer("cpu", max_epochs=1)
    t.fit(ipu, loader())
    tc.fit(cpu, loader())
    assert float(t.callback_metrics["detached"]) == pytest.approx(float(tc.callback_metrics["detached"]), rel=1e-5)
    _same_weights(ipu, cpu)
