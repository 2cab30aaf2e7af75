"""Trainer(accelerator="ipu", strategy="ipu", devices=N): N replicas in one process
(poptorch replicationFactor(N)), each on its own slice of the combined batch, gradients
reduced across them (Mean): the same updates as the CPU on the whole combined batch."""

# ruff: noqa: E402 - the imports below need lightning, checked first
from __future__ import annotations

import pytest

pytest.importorskip("lightning", reason="lightning is not installed: pip install -e '.[test]'")

import poptorch
import torch
from _models import Regressor, loader, trainer
from helpers import FP32


class Spy(Regressor):
    """Records the size of each batch Lightning hands to training_step."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.seen: list[int] = []
        self.per_replica: list[int] = []

    def on_train_batch_start(self, batch, batch_idx):
        self.seen.append(batch[0].shape[0])

    def training_step(self, batch, batch_idx):
        self.per_replica.append(batch[0].shape[0])  # the batch one replica's compiled step sees
        return super().training_step(batch, batch_idx)


def test_two_devices_replicate_and_match_cpu_on_the_combined_batch() -> None:
    ipu, cpu = Spy(lr=0.02, momentum=0.9), Regressor(lr=0.02, momentum=0.9)
    t = trainer(devices=2, max_epochs=2)
    assert t.strategy.training_opts.replication_factor == 2
    assert t.strategy.inference_opts.replication_factor == 2
    t.fit(ipu, loader(batch_size=4), loader(16, batch_size=4))
    tc = trainer("cpu", max_epochs=2)
    tc.fit(cpu, loader(batch_size=8), loader(16, batch_size=8))
    # batch_size 4 x 2 replicas: 4 combined batches of 8 per epoch, one compiled call each
    assert ipu.seen == [8] * 8
    assert set(ipu.per_replica) == {4}  # each replica runs the step on its 4 of them
    for (name, a), b in zip(ipu.named_parameters(), cpu.parameters(), strict=True):
        assert not torch.equal(a, Regressor().state_dict()[name])
        torch.testing.assert_close(a, b, **FP32, msg=name)
    # the logged loss is the mean of the replicas' losses: the loss of the combined batch
    for key in ("train_loss_epoch", "val_loss"):
        assert float(t.callback_metrics[key]) == pytest.approx(float(tc.callback_metrics[key]), rel=1e-5), key


def test_replicated_validate_and_predict_match_cpu() -> None:
    model = Regressor()
    t, tc = trainer(devices=4), trainer("cpu")
    got = t.validate(model, loader(16), verbose=False)[0]
    want = tc.validate(model, loader(16), verbose=False)[0]
    assert got["val_loss"] == pytest.approx(want["val_loss"], rel=1e-5)
    predicted = t.predict(model, loader(32))
    assert [p.shape for p in predicted] == [(16, 1), (16, 1)]  # 4 replicas x batch_size 4 per call
    torch.testing.assert_close(torch.cat(predicted), torch.cat(tc.predict(model, loader(32))), **FP32)


def test_devices_and_a_different_replication_factor_conflict() -> None:
    from ipu_mlir.lightning import IPUStrategy

    options = poptorch.Options().replicationFactor(4)
    with pytest.raises(ValueError, match=r"devices=2\) asks for 2 replicas but IPUStrategy\(training_opts=...\) has "
                                         r"replicationFactor\(4\)"):
        trainer(devices=2, strategy=IPUStrategy(training_opts=options)).fit(Regressor(), loader())


def test_three_devices_is_our_power_of_two_error() -> None:
    with pytest.raises(ValueError, match=r"devices=3\): the number of IPUs \(replicas\) must be 1 or a power of two.*"
                                         r"use devices=2 or 4"):
        trainer(devices=3)
