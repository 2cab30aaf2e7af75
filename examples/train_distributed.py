"""Data-parallel training over several processes with torch.distributed (gloo).

Launch two processes on this host, each running ``--replicas`` replicas of the model
(2 x 1 = 2 replicas in all by default):

    torchrun --nproc-per-node 2 examples/train_distributed.py [--epochs 2] [--replicas 1]

poptorch reads torchrun's RANK / WORLD_SIZE into ``Options.Distributed`` (processId /
numProcesses), starts torch.distributed (gloo, at torchrun's MASTER_ADDR:MASTER_PORT),
broadcasts process 0's weights to every process, and reduces the gradients of all
replicas of all processes at each step. ``poptorch.DataLoader`` gives each process its own
part of the dataset. Every process ends with the same weights: each prints a checksum.
Two hosts: see README "Replication" (``torchrun --nnodes 2 --node-rank ...``). Run
without torchrun, it trains as one process.
"""

from __future__ import annotations

import argparse

import torch

import poptorch


class Blobs(torch.utils.data.Dataset):
    """Points around 4 centres; the label is the centre."""

    def __init__(self, length: int) -> None:
        generator = torch.Generator().manual_seed(0)
        self.centres = torch.randn(4, 16, generator=generator) * 0.6
        self.labels = torch.randint(0, 4, (length,), generator=generator)
        self.points = self.centres[self.labels] + torch.randn(length, 16, generator=generator)

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.points[index], self.labels[index]


class Classifier(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
        self.loss = torch.nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, label: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.net(x)
        return out, self.loss(out, label)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--replicas", type=int, default=1, help="replicas per process")
    parser.add_argument("--samples", type=int, default=2048)
    args = parser.parse_args()

    torch.set_num_threads(1)  # one core per process
    opts = poptorch.Options().replicationFactor(args.replicas).randomSeed(0)  # same shuffle in every process
    rank, world = opts.Distributed.processId, opts.Distributed.numProcesses
    model = Classifier()  # each process may start anywhere: process 0's weights are broadcast
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    trained = poptorch.trainingModel(model, opts, optimizer)
    loader = poptorch.DataLoader(opts, Blobs(args.samples), batch_size=16, shuffle=True)
    for epoch in range(args.epochs):
        losses = []
        for x, label in loader:
            _, loss = trained(x, label)
            losses.append(float(loss.mean()))
        print(f"process {rank}/{world}: epoch {epoch}: {len(losses)} steps of {loader.combinedBatchSize} samples, "
              f"mean loss {sum(losses) / len(losses):.4f}")
    trained.copyWeightsToHost()
    checksum = sum(float(p.detach().double().sum()) for p in model.parameters())
    print(f"process {rank}/{world}: weights checksum {checksum:.10f} (the same in every process)")


if __name__ == "__main__":
    main()
