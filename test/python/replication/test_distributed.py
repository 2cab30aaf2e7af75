"""Many processes through torch.distributed (issue 13, "Many processes" and "Faults").

Each test launches its processes as torchrun would (RANK / WORLD_SIZE / MASTER_ADDR /
MASTER_PORT in the environment, distributed_worker.py) and bounds them with a timeout. The
reference is one process running all the replicas (replicationFactor = processes x local
replicas) on the same micro-batches, itself tested against eager training in
test_replicated_training.py.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import poptorch
from helpers import FP32

sys.path.insert(0, str(Path(__file__).parent))
from distributed_worker import MICRO, Regression, dataset  # noqa: E402

WORKER = Path(__file__).parent / "distributed_worker.py"
CHILD_SECONDS = 150  # every child process is killed after this


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _launch(tmp_path: Path, mode: str, local: int, steps: int, ranks: list[int], world: int = 2,
            timeout: float = 60.0, wait_for: int | None = None, set_timeout: float | None = None) -> list[dict]:
    """Run the worker as processes ``ranks`` of ``world``; each one's saved result (only the
    first ``wait_for`` processes' when given: the others are killed once those end)."""
    env = {**os.environ, "WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(_free_port()),
           "IPU_MLIR_DISTRIBUTED_TIMEOUT": str(timeout), "OMP_NUM_THREADS": "1"}
    env.pop("OMPI_COMM_WORLD_SIZE", None)
    env.pop("OMPI_COMM_WORLD_RANK", None)
    children = []
    for rank in ranks:
        out = tmp_path / f"rank{rank}.pt"
        log = open(tmp_path / f"rank{rank}.log", "w")  # noqa: SIM115 - closed below
        extra = [] if set_timeout is None else [str(set_timeout)]
        child = subprocess.Popen([sys.executable, str(WORKER), mode, str(local), str(steps), str(out), *extra],
                                 env={**env, "RANK": str(rank), "LOCAL_RANK": str(rank)}, stdout=log, stderr=log)
        children.append((rank, child, out, log))
    deadline = time.monotonic() + CHILD_SECONDS
    results = []
    try:
        for rank, child, out, _log in children[:wait_for]:
            try:
                child.wait(max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pytest.fail(f"process {rank} did not finish within {CHILD_SECONDS} s: "
                            f"{(tmp_path / f'rank{rank}.log').read_text()[-2000:]}")
            results.append(torch.load(out) if out.exists() else {"rank": rank, "exit": child.returncode})
    finally:
        for _rank, child, _out, log in children:
            if child.poll() is None:
                child.kill()
                child.wait()
            log.close()
    return results


def _one_process(local: int, world: int, steps: int) -> dict[str, torch.Tensor]:
    """All world x local replicas in this process, each on the micro-batch its global rank
    gets in the distributed run (process p reads the p-th contiguous part of the dataset)."""
    data = dataset(MICRO * local * world * steps)
    part = len(data) // world
    per_batch = MICRO * local
    model = Regression(seed=0)
    opts = poptorch.Options().replicationFactor(local * world)
    trained = poptorch.trainingModel(model, opts, torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9))
    for step in range(steps):
        rows = [i for p in range(world) for i in range(p * part + step * per_batch, p * part + (step + 1) * per_batch)]
        x, y = data.tensors[0][rows], data.tensors[1][rows]
        trained(x, y)
    trained.copyWeightsToHost()
    weights = {name: p.detach().clone() for name, p in model.named_parameters()}
    trained.destroy()
    return weights


@pytest.mark.parametrize("local", [1, 2])
def test_two_processes_train_as_one_process_with_all_replicas(tmp_path: Path, local: int) -> None:
    steps = 3
    results = _launch(tmp_path, "train", local, steps, [0, 1])
    for result in results:
        assert result.get("error") is None, result
        assert (result["rank"], result["world"]) == (results.index(result), 2)  # torchrun's RANK / WORLD_SIZE read
    # poptorch.DataLoader: each process read its own contiguous half of the dataset.
    data = dataset(MICRO * local * 2 * steps).tensors[0]
    half = len(data) // 2
    for result in results:
        seen = torch.cat(result["batches"])
        torch.testing.assert_close(seen, data[result["rank"] * half:(result["rank"] + 1) * half], rtol=0, atol=0)
    expected = _one_process(local, 2, steps)
    for name, want in expected.items():
        for result in results:  # process 1 started from other weights: the broadcast from process 0 won
            torch.testing.assert_close(result["weights"][name], want, **FP32, msg=f"process {result['rank']}: {name}")
        torch.testing.assert_close(results[0]["weights"][name], results[1]["weights"][name], rtol=0, atol=0)


@pytest.mark.parametrize("mode", ["die", "hang"])
def test_a_dead_or_hung_peer_fails_the_other_within_the_timeout(tmp_path: Path, mode: str) -> None:
    timeout = 6.0
    results = _launch(tmp_path, mode, 1, 3, [0, 1], wait_for=1, set_timeout=timeout)  # the variable says 60 s
    print(survivor_message := results[0]["error"])  # noqa: T201 - shown with -s
    assert survivor_message
    survivor = results[0]
    assert survivor["error"] is not None, "process 0 trained on without its peer"
    assert "process 1" in survivor["error"] and "did not reach it" in survivor["error"], survivor["error"]
    assert f"within {timeout:g} s" in survivor["error"]
    assert survivor["seconds"] < timeout + 10, survivor  # bounded by the timeout, never a hang


def test_numprocesses_two_without_the_peer_is_an_error_not_a_lone_run(tmp_path: Path) -> None:
    (result,) = _launch(tmp_path, "train", 1, 1, [0], timeout=2.0)
    assert result["error"] is not None and result["batches"] == []
    assert "process 0 of 2" in result["error"] and "could not start" in result["error"], result["error"]


def test_torch_distributed_started_by_the_user_must_agree() -> None:
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=1)
    try:
        opts = poptorch.Options()
        opts.Distributed.configureProcessId(0, 2)
        model = Regression(seed=0)
        trained = poptorch.trainingModel(model, opts, torch.optim.SGD(model.parameters(), lr=0.05))
        x, y = dataset(MICRO).tensors
        with pytest.raises(RuntimeError, match="process 0 of 2, but torch.distributed was initialised as rank 0 of 1"):
            trained(x, y)
        trained.destroy()
    finally:
        dist.destroy_process_group()


def test_torchrun_variables_and_the_timeout_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("IPU_MLIR_DISTRIBUTED_TIMEOUT", "12.5")
    opts = poptorch.Options()
    assert (opts.Distributed.processId, opts.Distributed.numProcesses) == (3, 4)
    assert opts.Distributed.timeout == 12.5
    assert opts.Distributed.setTimeout(7).timeout == 7.0
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "2")  # OpenMPI's variables come first
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "1")
    assert (poptorch.Options().Distributed.processId, poptorch.Options().Distributed.numProcesses) == (1, 2)
    monkeypatch.setenv("IPU_MLIR_DISTRIBUTED_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="IPU_MLIR_DISTRIBUTED_TIMEOUT='soon' is not a positive number"):
        _ = poptorch.Options().Distributed.timeout
    with pytest.raises(ValueError, match="positive number of seconds"):
        poptorch.Options().Distributed.setTimeout(0)
