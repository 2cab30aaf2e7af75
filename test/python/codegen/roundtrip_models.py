"""The five models of the Poplar C++ round trip (issue 18): each builder returns
(model, options, input)."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

import poptorch


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1, self.l2 = nn.Linear(8, 16), nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.l2(torch.relu(self.l1(x)))


class CNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv, self.bn = nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4)
        self.max, self.avg = nn.MaxPool2d(2), nn.AvgPool2d(2)
        self.fc = nn.Linear(16, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.avg(self.max(torch.relu(self.bn(self.conv(x))))), 1))


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x)


class Sharded(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1, self.l2 = nn.Linear(8, 8), nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with poptorch.Block(ipu_id=0):
            y = torch.relu(self.l1(x))
        with poptorch.Block(ipu_id=1):
            return self.l2(y)


class ElementWise(nn.Module):
    """Views, reductions, casts and map expressions beyond the five models, device control
    flow (poptorch.cond taking either branch, and inside a poptorch.for_loop: a condition that
    changes between iterations) and accumulating products (addmm with a broadcast row and
    scales, baddbmm, addmv with beta 0 over a NaN accumulator) and factorisations (Cholesky
    lower and upper, triangular solves on either side, the Cholesky solve and inverse; LU with
    pivoting, its unpacking, solve, inverse, determinants and the linear solve of vectors and
    matrices)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(1)
        self.register_buffer("m", torch.randn(4, 5))
        self.register_buffer("row", torch.randn(5))
        self.register_buffer("eye", torch.eye(3))  # (torch.eye in the program is a ui8 compare, which has no Poplar type here)

    def accumulated(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        batch = torch.stack([x, x * 2.0])
        return (torch.addmm(self.row, x, self.m, beta=0.5, alpha=2.0),
                torch.baddbmm(torch.ones(2, 3, 5), batch, self.m.expand(2, 4, 5)),
                torch.addmv(torch.full((3,), float("nan")), x, self.m[:, 0], beta=0.0))

    def factored(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        spd = x @ x.T + 4.0 * self.eye
        lower, upper = torch.linalg.cholesky(spd), torch.linalg.cholesky(spd, upper=True)
        return (lower, upper, torch.linalg.solve_triangular(upper, x, upper=True),
                torch.linalg.solve_triangular(lower, x.T, upper=False, left=False, unitriangular=True),
                torch.cholesky_solve(x, lower), torch.cholesky_solve(x, upper, upper=True), torch.cholesky_inverse(lower),
                *self.lu(x))

    def lu(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        square = torch.stack([x[:, :3], x[:, 1:] * 2.0])  # [2, 3, 3]: pivoting rows
        lu, pivots = torch.linalg.lu_factor(square)
        return (lu, pivots, torch.linalg.lu_solve(lu, pivots, x[:, :2].expand(2, 3, 2)), torch.linalg.inv(square),
                torch.linalg.det(square), torch.linalg.solve(square, x[:, 0].expand(2, 3)), torch.linalg.solve(square[0], x),
                *torch.linalg.slogdet(square), *torch.lu_unpack(lu, pivots))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        y = torch.cat([x.flip(1), x * 2.0], 1)
        centred = (y - y.mean(1, keepdim=True)) / (y.amax(1, keepdim=True).abs() + 3.0)
        steps = (x * 4).to(torch.int32).to(torch.float32)
        taken = [poptorch.cond(x.abs().sum() > bound, lambda a: [a * 2.0], [x], lambda a: [a - 1.0], [x])[0]
                 for bound in (-1.0, 1.0e9)]  # then, else

        def body(a: torch.Tensor) -> list[torch.Tensor]:
            return poptorch.cond(a.mean() > 0, lambda t: [t - 0.75], [a], lambda t: [t + 1.0], [a])

        looped = poptorch.for_loop(5, body, [x])[0]
        return torch.cat([torch.exp(-centred) * torch.sigmoid(centred), steps + x.sum(0)], 1), *taken, looped, *self.accumulated(x), *self.factored(x)


class Lookup(nn.Module):
    """An embedding lookup, constant padding and an argmax (an integer output)."""

    def __init__(self) -> None:
        super().__init__()
        self.embedding = nn.Embedding(10, 4)

    def forward(self, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        rows = F.pad(self.embedding(ids), (1, 2), value=0.5)
        return rows, torch.argmax(rows, dim=-1)


class Indexing(nn.Module):
    """torch.gather, index_select along dim 1, index_add / index_copy, average pooling
    with padding not counted, and the scatters: scatter, scatter_add and scatter_reduce
    (amax with, amin and sum without the input's elements; indices repeat) and segment
    reductions (max per row of lengths, mean with an initial value, min, sum by offsets;
    empty segments)."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("gathered", torch.tensor([[[8, 0, 4, 4]] * 3, [[1, 2, 3, 7]] * 3]))
        self.register_buffer("selected", torch.tensor([2, 0]))
        self.register_buffer("spread", torch.tensor([[0, 3], [1, 4]]))
        self.register_buffer("lengths", torch.tensor([[1, 0, 3, 2], [2, 2, 2, 0], [6, 0, 0, 0]]))
        self.register_buffer("offsets", torch.tensor([0, 2, 2, 6]))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        pooled = F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False).flatten(2)  # [2, 3, 9]
        picked = torch.index_select(torch.gather(pooled, 2, self.gathered), 1, self.selected)  # [2, 2, 4]
        added = pooled.index_add(2, self.gathered[0, 0], picked[:, :1].expand(2, 3, 4))  # index 4 twice
        copied = pooled.index_copy(1, self.selected, picked[:, :, :1].expand(2, 2, 9))
        at = self.gathered[:, :2, :3]  # [2, 2, 3], rows repeat along dim 0
        flat = x[:, 0, 0]  # [2, 6]
        scattered = torch.scatter(flat, 1, self.selected.expand(2, 2) + self.spread, x[:, 1, 0, :2])
        reduced = [pooled.scatter_add(2, at, picked[:, :, :3]),
                   pooled.scatter_reduce(2, at, x[:, 0, :2, :3], "amax"),
                   pooled.scatter_reduce(2, at, x[:, 1, :2, :3], "amin", include_self=False),
                   pooled.scatter_reduce(0, at.clamp(max=1), x[:, 2, :2, :3], "sum", include_self=False)]
        rows, columns = x[0, :, :, 0], x[1, 0]  # [3, 6] segmented along dim 1 per row, [6, 6] along dim 0
        segments = [torch.segment_reduce(rows, "max", lengths=self.lengths, axis=1),
                    torch.segment_reduce(columns, "mean", lengths=self.lengths[0], axis=0, initial=0.5),
                    torch.segment_reduce(columns, "min", lengths=self.lengths[0], axis=0),
                    torch.segment_reduce(columns, "sum", offsets=self.offsets, axis=0, initial=1.0)]
        return picked, added, copied, scattered, *reduced, *segments


class Sorting(nn.Module):
    """torch.sort ascending and descending along different dims (values and indices), the
    cumulative sum and product (a float and an integer scan), torch.topk (largest and
    smallest), the running maximum / minimum with positions (an integer scan with ties), the
    running log-sum-exp (values whose exp overflows a float), histograms (histc with a range and
    with the data's, histogram with a range and density) and searchsorted / bucketize (one
    line and a line per row, left and right), kthvalue, median and nanmedian (lines with NaN);
    values on a grid that hits the bin edges and repeats boundaries."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        up, up_at = torch.sort(x, dim=1)
        down, down_at = torch.sort(x, dim=0, descending=True)
        top, top_at = torch.topk(x, 2, dim=0)
        low, low_at = torch.topk(x, 3, dim=1, largest=False)
        high, high_at = torch.cummax(x, 1)
        least, least_at = torch.cummin((x * 2).to(torch.int32), 0)  # equal values: the last position
        return (up, up_at, down, down_at, torch.cumsum(x, 1), torch.cumprod((x * 3).to(torch.int32), 0),
                top, top_at, low, low_at, high, high_at, least, least_at, torch.logcumsumexp(x * 60, 1),
                torch.logcumsumexp(x, 0), *self.histograms((x * 4).round() / 4), *self.statistics(x))

    @staticmethod
    def statistics(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        holes = torch.where(x > 1.0, float("nan"), x)  # lines with and without NaN (none all NaN: its position is a tie)
        return (*torch.kthvalue(x, 2, dim=1), *torch.median(x, dim=0), *torch.median(holes, dim=1, keepdim=True),
                *torch.nanmedian(holes, dim=1))

    @staticmethod
    def histograms(grid: torch.Tensor) -> tuple[torch.Tensor, ...]:
        counts, edges = torch.histogram(grid, 5, range=(-1.0, 1.5), density=True)
        boundaries = torch.sort(grid[0]).values  # with repeated values
        lines = torch.sort(grid, dim=1).values
        return (torch.histc(grid, 4, -1.0, 1.0), torch.histc(grid, 7), counts, edges, torch.bucketize(grid, boundaries),
                torch.searchsorted(boundaries, grid, right=True), torch.searchsorted(lines, grid[:, :4], out_int32=True))


class Draws(nn.Module):
    """Random draws in inference: torch.rand, normal_ with a mean and a standard deviation,
    uniform_ over a range and torch.randint (each device iteration draws new values)."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return (x + torch.rand(64, 64), torch.empty(64, 64).normal_(1.0, 2.0), torch.empty(32, 32).uniform_(-2.0, 3.0),
                torch.randint(0, 5, (256,)))


class DropoutWithLoss(nn.Module):
    """A training step through dropout: the dropped input is an output, so the test can check
    the forward and the gradient used one mask."""

    def __init__(self) -> None:
        super().__init__()
        self.drop, self.lin = nn.Dropout(0.5), nn.Linear(16, 4)

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = self.drop(x)
        return y, F.mse_loss(self.lin(y), target)


def _cnn() -> nn.Module:
    model = CNN()
    with torch.no_grad():  # statistics unlike the defaults, so that batch norm does something
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
        model.bn.weight.uniform_(0.5, 1.5)
        model.bn.bias.uniform_(-0.5, 0.5)
    return model.eval()


def build(name: str) -> tuple[nn.Module, poptorch.Options, torch.Tensor]:
    torch.manual_seed(0)
    options = poptorch.Options()
    if name == "mlp":
        return MLP(), options, torch.randn(2, 8)
    if name == "cnn":
        return _cnn(), options, torch.randn(2, 3, 8, 8)
    if name == "encoder":
        return Encoder().eval(), options, torch.randn(2, 5, 16)
    if name == "device_iterations":
        options.deviceIterations(4)
        return MLP(), options, torch.randn(8, 8)
    if name == "sharded":
        options.setExecutionStrategy(poptorch.ShardedExecution())
        return Sharded(), options, torch.randn(2, 8)
    if name == "pipelined":
        options.deviceIterations(4)
        options.setExecutionStrategy(poptorch.PipelinedExecution(poptorch.AutoStage.SameAsIpu))
        return Sharded(), options, torch.randn(8, 8)
    if name == "lookup":
        return Lookup(), options, torch.tensor([[1, 7, 3], [9, 0, 3]])
    if name == "indexing":
        return Indexing(), options, torch.randn(2, 3, 6, 6)
    if name == "sorting":
        return Sorting(), options, torch.randn(3, 6)
    if name == "elementwise":
        return ElementWise(), options, torch.randn(3, 4)
    raise ValueError(name)


MODELS = ["mlp", "cnn", "encoder", "device_iterations", "sharded", "pipelined", "elementwise", "lookup", "indexing", "sorting"]


class MLPWithLoss(nn.Module):
    """The MLP trained with an MSE loss (one SGD step in the round trip)."""

    def __init__(self) -> None:
        super().__init__()
        self.mlp = MLP()

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.mlp(x)
        return out, F.mse_loss(out, target)


class PhasedChain(nn.Module):
    """Four Linear(8, 8) + ReLU blocks "b0".."b3" and a head with an MSE loss in "b3": the
    phased round trip's model (two phases of two blocks)."""

    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(4))
        self.head = nn.Linear(8, 3)

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        for index, layer in enumerate(self.layers):
            with poptorch.Block(f"b{index}"):
                x = torch.relu(layer(x))
                if index == len(self.layers) - 1:
                    out = self.head(x)
                    loss = F.mse_loss(out, target)
        return out, loss


class CNNWithLoss(nn.Module):
    """A CNN training step: convolution, batch norm in training mode, ReLU, average pooling
    with padding, a grouped transposed convolution (stride 2, output padding), max pooling and
    a cross-entropy loss (conv, transposed conv, norm, pool and NLL gradients)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv, self.bn = nn.Conv2d(3, 4, 3, padding=1, stride=2), nn.BatchNorm2d(4)
        self.pool, self.avg = nn.MaxPool2d(2), nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False)
        self.up = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.fc = nn.Linear(32, 5)

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.fc(torch.flatten(self.pool(self.up(self.avg(torch.relu(self.bn(self.conv(x)))))), 1))
        return out, F.cross_entropy(out, target)


class EncoderWithLoss(nn.Module):
    """A transformer training step: embedding, an encoder layer (attention, layer norm, GELU)
    and a cross-entropy loss over the tokens (embedding update and layer-norm gradients)."""

    def __init__(self) -> None:
        super().__init__()
        self.embedding = nn.Embedding(10, 16)
        self.layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, activation="gelu", batch_first=True)
        self.head = nn.Linear(16, 10)

    def forward(self, ids: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.head(self.layer(self.embedding(ids)))
        return out, F.cross_entropy(out.reshape(-1, 10), target.reshape(-1), ignore_index=0)


class SegmentsWithLoss(nn.Module):
    """A training step through segment reductions (max, mean, min with an initial value, sum
    by offsets) of weighted inputs: their gradients reach the weights (ties in max share it)."""

    def __init__(self) -> None:
        super().__init__()
        self.shift = nn.Parameter(torch.zeros(6, 2))  # zero: the repeated rows below tie in max
        self.weights = nn.ParameterList([nn.Parameter(torch.randn(6, 2)) for _ in range(3)])
        self.lin = nn.Linear(2, 2)
        self.register_buffer("lengths", torch.tensor([1, 3, 2]))
        self.register_buffer("offsets", torch.tensor([0, 1, 4, 6]))
        self.register_buffer("flip", torch.tensor([1.0, -1.0]))

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        w = self.weights
        tied = torch.cat([x[:2], x[1:2], x[1:2], x[:2]]) + self.shift  # rows 1-3 (one segment) are equal
        y = (torch.segment_reduce(tied, "max", lengths=self.lengths, axis=0)
             + torch.segment_reduce(x * w[0], "mean", lengths=self.lengths, axis=0)
             + torch.segment_reduce(x * w[1], "min", lengths=self.lengths, axis=0, initial=0.25)
             + torch.segment_reduce(x * w[2], "sum", offsets=self.offsets, axis=0))
        out = self.lin(y * self.flip)  # the two columns' gradients of opposite signs: eager splits only positive ones
        return out, F.mse_loss(out, target)


def build_training(name: str) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(0)
    if name == "cnn training step":
        return CNNWithLoss(), (torch.randn(2, 3, 8, 8), torch.tensor([1, 3]))
    if name == "transformer training step":
        return EncoderWithLoss(), (torch.tensor([[1, 7, 3, 3, 0], [9, 0, 3, 2, 5]]), torch.tensor([[2, 0, 4, 4, 1], [0, 8, 3, 6, 9]]))
    if name == "segment training step":
        return SegmentsWithLoss(), (torch.randn(6, 2), torch.randn(3, 2))
    raise ValueError(name)


TRAINING_MODELS = ["cnn training step", "transformer training step", "segment training step"]
