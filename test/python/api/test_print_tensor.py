"""poptorch.ipu_print_tensor with every argument of the reference: title, print_gradient and the
layout (summarise_threshold, edge_items, max_line_width, digits, float_format, separator, brackets)."""

from __future__ import annotations

import pytest
import torch
from helpers import FP32

import poptorch


class Printer(torch.nn.Module):
    def __init__(self, **kwargs) -> None:
        super().__init__()
        self.kwargs = kwargs

    def forward(self, x):
        return poptorch.ipu_print_tensor(x + 0, "x", **self.kwargs) * 1


def _printed(capsys, x, **kwargs) -> str:
    model = poptorch.inferenceModel(Printer(**kwargs))
    capsys.readouterr()
    out = model(x)
    torch.testing.assert_close(out, x, **FP32)
    return capsys.readouterr().out.strip()


def test_default_layout_uses_poplars_brackets(capsys):
    assert _printed(capsys, torch.tensor([[1.0, 2.5], [3.0, 4.0]])) == "x: ((1.  2.5)\n    (3.  4. ))"


def test_separator_brackets_and_fixed_digits(capsys):
    text = _printed(capsys, torch.tensor([1.0, 2.5, -3.0]), separator=", ", open_bracket="[", close_bracket="]",
                    digits=2, float_format="fixed")
    assert text == "x: [1.00, 2.50, -3.00]"


def test_scientific_format(capsys):
    assert _printed(capsys, torch.tensor([1234.5]), digits=1, float_format="scientific") == "x: (1.2e+03)"


def test_summarise_threshold_and_edge_items(capsys):
    text = _printed(capsys, torch.arange(10.0), summarise_threshold=5, edge_items=2)
    assert text == "x: (0. 1. ... 8. 9.)"
    assert _printed(capsys, torch.arange(10.0), summarise_threshold=100).count(".") == 10  # not summarised


def test_max_line_width_wraps(capsys):
    text = _printed(capsys, torch.arange(12.0), max_line_width=20)
    assert len(text.splitlines()) > 1
    assert all(len(line) <= 20 for line in text.splitlines()[1:])


class Trained(torch.nn.Module):
    def __init__(self, print_gradient: bool) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(2, 1)
        self.print_gradient = print_gradient

    def forward(self, x, y):
        out = poptorch.ipu_print_tensor(self.linear(x), "out", print_gradient=self.print_gradient)
        return out, torch.nn.functional.mse_loss(out, y, reduction="sum")


@pytest.mark.parametrize("print_gradient", [True, False])
def test_print_gradient_in_training(capsys, print_gradient):
    torch.manual_seed(0)
    model = Trained(print_gradient)
    x, y = torch.randn(1, 2), torch.randn(1, 1)
    with torch.no_grad():
        expected_out = model.linear(x)
    step = poptorch.trainingModel(model, optimizer=torch.optim.SGD(model.parameters(), lr=0.0))
    capsys.readouterr()
    step(x, y)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("out: ")
    assert float(lines[0].split("((")[1].rstrip(")")) == pytest.approx(expected_out.item(), rel=1e-5)
    if print_gradient:
        assert len(lines) == 2 and lines[1].startswith("out_gradient: ")
        gradient = 2 * (expected_out - y)  # d/d out of the summed squared error
        assert float(lines[1].split("((")[1].rstrip(")")) == pytest.approx(gradient.item(), rel=1e-5)
    else:
        assert len(lines) == 1


@pytest.mark.parametrize("kwargs, error, fragment", [
    ({"digits": -1}, ValueError, "'digits' must be >= 0"),
    ({"edge_items": 1.5}, TypeError, "'edge_items' must be an integer"),
    ({"float_format": "engineering"}, ValueError, "'float_format' must be one of auto, fixed, scientific, none"),
    ({"separator": 1}, TypeError, "'separator' must be a string"),
    ({"print_gradient": "yes"}, TypeError, "print_gradient must be a bool"),
    ({"max_line_width": 0}, ValueError, "'max_line_width' must be >= 1"),
])
def test_argument_errors(kwargs, error, fragment):
    with pytest.raises(error, match=fragment):
        poptorch.ipu_print_tensor(torch.ones(2), "t", **kwargs)
