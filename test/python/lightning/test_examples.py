"""examples/lightning_mnist_like.py (progress bar, logged metrics, a checkpoint) and
examples/lightning_seed_004.py (the seed's Lightning IPU snippets) run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("lightning", reason="lightning is not installed: pip install -e '.[test]'")

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _run(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_mnist_like_example_learns_logs_and_checkpoints(tmp_path: Path) -> None:
    done = _run("lightning_mnist_like.py", "--epochs", "2", "--samples", "512", "--out", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.search(r"Epoch 1/1 .* 32/32 ", done.stdout), done.stdout[-2000:]  # Lightning's progress bar
    accuracies = [float(a) for a in re.findall(r"epoch \d: val_loss [0-9.]+ val_acc ([0-9.]+)", done.stdout)]
    assert len(accuracies) == 2 and max(accuracies) > 0.5  # 10 classes: chance is 0.1
    best = re.search(r"best checkpoint: (\S+\.ckpt)", done.stdout)
    assert best and Path(best.group(1)).exists()
    assert float(re.search(r"test accuracy of the checkpoint: ([0-9.]+)", done.stdout).group(1)) > 0.5
    metrics = (tmp_path / "mnist_like" / "version_0" / "metrics.csv").read_text()
    assert "train_loss_step" in metrics and "val_acc" in metrics


@pytest.mark.parametrize("devices", [1, 8])  # 8: the page's ipus=8, replicated
def test_seed_004_snippets_run_and_replicate(tmp_path: Path, devices: int) -> None:
    done = _run("lightning_seed_004.py", "--devices", str(devices), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = dict(re.findall(r"^(\w+): (\d+ steps of \d+ replicas x batch \d+), train_loss [0-9.]+$", done.stdout, re.M))
    per_call = f"{devices} replicas x batch 4"  # each replica's step runs on batch_size 4
    assert lines == {"training_with_ipus": f"64 steps of {per_call}", "mixed_precision": f"64 steps of {per_call}",
                     "pure_16_bit": f"64 steps of {per_call}", "device_iterations": f"2 steps of {per_call}",
                     "poptorch_options": f"2 steps of {per_call}"}, done.stdout
