"""examples/train_dataloader.py, the introduction's training loop (poptorch.DataLoader ->
trainingModel with AdamW, no .backward() / .step()), runs and learns, with a tqdm bar."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "train_dataloader.py"


def test_example_trains_with_a_progress_bar():
    done = subprocess.run([sys.executable, str(EXAMPLE), "--epochs", "2", "--samples", "800"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "20 steps of combinedBatchSize 40 per epoch" in done.stdout
    losses = [float(v) for v in re.findall(r"epoch \d: mean loss ([0-9.]+)", done.stdout)]
    assert len(losses) == 2 and losses[1] < losses[0] * 0.8
    assert re.search(r"epoch 1: 100%\|.*\| 20/20 .*loss=[0-9.]+", done.stderr)  # tqdm's bar
