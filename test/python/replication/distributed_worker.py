"""One process of a distributed test run (test_distributed.py launches it as torchrun
would: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT in the environment).

    python distributed_worker.py MODE LOCAL_REPLICAS STEPS OUT [TIMEOUT]

MODE: "train" (train STEPS steps, save the weights and the batches seen), "die" (process 1
exits abruptly after the first step), "hang" (process 1 sleeps after the first step);
TIMEOUT: Options.Distributed.setTimeout (else IPU_MLIR_DISTRIBUTED_TIMEOUT applies). OUT
receives a torch.save'd dict: weights, batches, error (our message, if any), seconds.
"""

from __future__ import annotations

import os
import sys
import time
import traceback

import torch
import torch.nn.functional as F

import poptorch

MICRO = 3


class Regression(torch.nn.Module):
    def __init__(self, seed: int) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.net = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.net(x)
        return out, F.mse_loss(out, y)


def dataset(samples: int) -> torch.utils.data.TensorDataset:
    generator = torch.Generator().manual_seed(1)
    return torch.utils.data.TensorDataset(torch.randn(samples, 6, generator=generator),
                                          torch.randn(samples, 3, generator=generator))


def main() -> None:
    mode, local, steps, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    torch.set_num_threads(1)
    opts = poptorch.Options().replicationFactor(local)  # Distributed: from RANK / WORLD_SIZE
    if len(sys.argv) > 5:
        opts.Distributed.setTimeout(float(sys.argv[5]))
    rank, world = opts.Distributed.processId, opts.Distributed.numProcesses
    model = Regression(seed=rank)  # different in each process: the broadcast from process 0 must win
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    trained = poptorch.trainingModel(model, opts, optimizer)
    loader = poptorch.DataLoader(opts, dataset(MICRO * local * world * steps), batch_size=MICRO, shuffle=False)
    result: dict = {"rank": rank, "world": world, "batches": [], "error": None}
    start = time.perf_counter()  # of the last call: how long a failing one took
    try:
        for step, (x, y) in enumerate(loader):
            if step == 1 and rank == 1 and mode == "die":
                os._exit(3)
            if step == 1 and rank == 1 and mode == "hang":
                time.sleep(120)
            start = time.perf_counter()
            trained(x, y)
            result["batches"].append(x.clone())
        trained.copyWeightsToHost()
    except Exception as error:  # noqa: BLE001 - the test reads our message
        result["error"] = f"{type(error).__name__}: {error}"
        result["traceback"] = traceback.format_exc()
    result["seconds"] = time.perf_counter() - start
    result["weights"] = {name: p.detach().clone() for name, p in model.named_parameters()}
    torch.save(result, out)
    sys.stdout.flush()
    os._exit(0)  # do not wait for a broken process group's threads


if __name__ == "__main__":
    main()
