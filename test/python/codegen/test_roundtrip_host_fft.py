"""Round trip of the FFTs, complex views, host functions and the CTC decoder in the emitted
Poplar C++ (issue 18): one inference program with torch.fft transforms (real to complex,
one- and two-sided, complex to complex forward and inverse, complex to real of even and odd
lengths, every normalisation, dims other than the last), view_as_real / view_as_complex, a
complex output stream, a poptorch.CPU op, a custom op with an attribute and
poptorch.ctc_beam_search_decoder; and one training step through a custom op with its
gradient. The host functions' implementations are the C functions below, linked with the
emitted program. Skipped only when no C++ compiler is found."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

import poptorch
from helpers import FP32

sys.path.insert(0, str(Path(__file__).parent))
from roundtrip_timing import COMPILE_SECONDS  # noqa: E402
from test_roundtrip import CXX, HOST, host_library, pytestmark  # noqa: E402,F401  (the library fixture, the skip)

# The C implementations of the models' host functions, as a user would write them.
HOOKS = r"""
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

extern "C" {
struct IpuHostTensor { const char *type; unsigned rank; const std::size_t *shape; std::size_t elements; void *data; };

static void expect(bool ok, const char *what) { if (!ok) throw std::runtime_error(what); }

// poptorch.CPU(lambda x: x * 2.0 + 1.0, "Affine")
void ipu_host_call_Affine_1(const IpuHostTensor *inputs, unsigned numInputs, IpuHostTensor *outputs, unsigned numOutputs) {
  expect(numInputs == 1 && numOutputs == 1 && std::strcmp(inputs[0].type, "float") == 0, "Affine: one float input and output");
  const float *x = static_cast<const float *>(inputs[0].data);
  float *y = static_cast<float *>(outputs[0].data);
  for (std::size_t i = 0; i < inputs[0].elements; ++i) y[i] = x[i] * 2.0f + 1.0f;
}

// LeakyRelu(x, alpha) -> (leaky_relu(x, alpha), sum(x) as a scalar)
void ipu_custom_op_test_ops_LeakyRelu(const IpuHostTensor *inputs, unsigned numInputs, IpuHostTensor *outputs,
                                      unsigned numOutputs, const char *attributes) {
  expect(numInputs == 1 && numOutputs == 2 && outputs[1].rank == 0, "LeakyRelu: one input, two outputs");
  const char *at = std::strstr(attributes, "\"alpha\": ");
  expect(at != nullptr, "LeakyRelu: no alpha attribute");
  float alpha = std::strtof(at + 9, nullptr);
  const float *x = static_cast<const float *>(inputs[0].data);
  float *y = static_cast<float *>(outputs[0].data), *sum = static_cast<float *>(outputs[1].data);
  double total = 0.0;
  for (std::size_t i = 0; i < inputs[0].elements; ++i) {
    y[i] = x[i] > 0 ? x[i] : alpha * x[i];
    total += x[i];
  }
  *sum = static_cast<float>(total);
}

// Cube(x, scale) = scale * x ** 3, and its gradient 3 * scale * x ** 2 * grad
void ipu_custom_op_test_ops_Cube(const IpuHostTensor *inputs, unsigned, IpuHostTensor *outputs, unsigned, const char *attributes) {
  float scale = std::strtof(std::strstr(attributes, "\"scale\": ") + 9, nullptr);
  const float *x = static_cast<const float *>(inputs[0].data);
  float *y = static_cast<float *>(outputs[0].data);
  for (std::size_t i = 0; i < inputs[0].elements; ++i) y[i] = scale * x[i] * x[i] * x[i];
}

void ipu_custom_op_grad_test_ops_Cube(const IpuHostTensor *inputs, unsigned numInputs, const IpuHostTensor *, const IpuHostTensor *gradOutputs,
                                      unsigned numOutputs, IpuHostTensor *gradInputs, const unsigned *differentiable,
                                      unsigned numGradInputs, const char *attributes) {
  expect(numInputs == 1 && numOutputs == 1 && numGradInputs == 1 && differentiable[0] == 0, "Cube's gradient: one input");
  float scale = std::strtof(std::strstr(attributes, "\"scale\": ") + 9, nullptr);
  const float *x = static_cast<const float *>(inputs[0].data), *g = static_cast<const float *>(gradOutputs[0].data);
  float *dx = static_cast<float *>(gradInputs[0].data);
  for (std::size_t i = 0; i < inputs[0].elements; ++i) dx[i] = 3.0f * scale * x[i] * x[i] * g[i];
}
}
"""


class Spectra(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cpu = poptorch.CPU(lambda x: x * 2.0 + 1.0, "Affine")

    def forward(self, x: torch.Tensor, pairs: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, ...]:
        spectrum = torch.fft.rfft2(x, norm="ortho")  # [2, 4, 4]: r2c on dim 2, then c2c on dim 1
        z = torch.view_as_complex(pairs)  # [5, 3]
        affine = self.cpu(torch.fft.irfft(torch.fft.rfft(x), n=6))
        leaky, total = poptorch.custom_op((affine,), "LeakyRelu", "test.ops", 1, example_outputs=(affine, affine.sum()),
                                          attributes={"alpha": 0.25})
        log_probs = torch.log_softmax(x.reshape(6, 2, 4) * 3.0, -1)
        probabilities, path_lengths, paths = poptorch.ctc_beam_search_decoder(log_probs, lengths, blank=2, beam_width=4, top_paths=3)
        return (torch.view_as_real(spectrum),
                torch.fft.irfft2(spectrum, s=(4, 6), norm="ortho"),
                torch.fft.irfft(spectrum, n=7, dim=2, norm="forward"),  # odd length: no Nyquist bin
                torch.fft.fft(z, dim=0),  # a complex output
                torch.view_as_real(torch.fft.ifft(z, dim=1, norm="ortho")),
                torch.view_as_real(torch.fft.fft(x, dim=1)),  # two-sided, not the last dim
                leaky, total, probabilities, path_lengths, paths)


class CubeWithLoss(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = poptorch.custom_op((self.lin(x),), "Cube", "test.ops", 1, example_outputs=(self.lin(x),), attributes={"scale": 0.5})[0]
        return out, F.mse_loss(out, target)


def _register() -> None:
    poptorch.register_custom_op("LeakyRelu", "test.ops", lambda x, alpha: (F.leaky_relu(x, alpha), x.sum()))
    poptorch.register_custom_op("Cube", "test.ops", lambda x, scale: scale * x ** 3,
                                backward=lambda inputs, outputs, grads, scale: [3.0 * scale * inputs[0] ** 2 * grads[0]])


def _build_and_run(directory: Path, host_library: Path, name: str) -> None:
    (directory / "hooks.cpp").write_text(HOOKS)
    start = time.perf_counter()
    built = subprocess.run([CXX, "-std=c++17", "-O1", f"-I{HOST / 'include'}", str(directory / "program.cpp"), str(directory / "hooks.cpp"),
                            str(host_library), "-o", str(directory / "program")], capture_output=True, text=True)
    COMPILE_SECONDS[name] = time.perf_counter() - start
    print(f"{name}: C++ compile {COMPILE_SECONDS[name]:.2f} s")
    assert built.returncode == 0, built.stderr[-4000:]
    ran = subprocess.run([str(directory / "program"), str(directory)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr


def _read(path: Path, want: torch.Tensor) -> torch.Tensor:
    raw = np.fromfile(path, dtype=want.numpy().dtype)
    assert raw.size == want.numel(), path
    return torch.from_numpy(raw).reshape(want.shape)


def test_emitted_ffts_host_functions_and_ctc_match_the_ipu_model(host_library: Path, tmp_path: Path) -> None:
    _register()
    torch.manual_seed(0)
    model = Spectra()
    x, pairs = torch.randn(2, 4, 6), torch.randn(5, 3, 2)
    lengths = torch.tensor([6, 4], dtype=torch.int32)
    wrapper = poptorch.inferenceModel(model)
    expected = wrapper(x, pairs, lengths)
    source = tmp_path / "program.cpp"
    wrapper.exportPoplarCpp(str(source))
    text = source.read_text()
    assert 'extern "C" void ipu_host_call_Affine_1(' in text and "engine.connectHostFunction(f.handle, r, f.call);" in text
    assert "popnn::ctc_infer::beamSearchDecoderLogProbabilities(" in text and "DftKind::COMPLEX_TO_REAL, 7, 4, 7" in text
    interface = wrapper._compiled.executable.interface
    for spec, tensor in zip(wrapper._compiled.captured.inputs, (x, pairs, lengths), strict=True):
        (tmp_path / f"{interface.input_stream(spec.name)}.bin").write_bytes(tensor.numpy().tobytes())
    _build_and_run(tmp_path, host_library, "fft, host functions, ctc")

    eager = model(x, pairs, lengths)
    assert expected[3].dtype == torch.complex64
    for index, (want, reference) in enumerate(zip(expected, eager, strict=True)):
        got = _read(tmp_path / f"{interface.output_stream(index)}.bin", want)
        if want.dtype.is_floating_point or want.dtype.is_complex:
            torch.testing.assert_close(got, want, **FP32, msg=lambda m, i=index: f"output {i}: {m}")
            torch.testing.assert_close(got, reference, **FP32, msg=lambda m, i=index: f"output {i} vs eager: {m}")
        else:  # path lengths and labels
            assert torch.equal(got, want) and torch.equal(got, reference.to(got.dtype)), index
    assert (expected[10] == 2).any()  # the blank pads a path shorter than the steps


def test_emitted_custom_op_gradient_matches_the_ipu_model(host_library: Path, tmp_path: Path) -> None:
    """One SGD step through a custom op: its gradient is a host function calling the grad hook."""
    _register()
    torch.manual_seed(0)
    model = CubeWithLoss()
    x, target = torch.randn(2, 4), torch.randn(2, 3)
    wrapper = poptorch.trainingModel(model, poptorch.Options(), optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    wrapper.compile(x, target)
    source = tmp_path / "program.cpp"
    wrapper.exportPoplarCpp(str(source))
    assert 'extern "C" void ipu_custom_op_grad_test_ops_Cube(' in source.read_text()
    interface = wrapper._compiled.executable.interface
    for spec, tensor in zip(wrapper._compiled.captured.inputs, (x, target), strict=True):
        (tmp_path / f"{interface.input_stream(spec.name)}.bin").write_bytes(tensor.numpy().tobytes())
    out, loss = wrapper(x, target)
    wrapper.copyWeightsToHost()
    _build_and_run(tmp_path, host_library, "custom op training step")

    torch.testing.assert_close(_read(tmp_path / f"{interface.output_stream(0)}.bin", loss), loss, **FP32)
    torch.testing.assert_close(_read(tmp_path / f"{interface.output_stream(1)}.bin", out), out, **FP32)
    updated = torch.from_numpy(np.fromfile(tmp_path / "weights.out.bin", dtype=np.float32))
    parameters, offset, checked = dict(model.named_parameters()), 0, []
    for kind, name in interface.variables:  # the parameters after the step; the hyper-parameters are scalars
        size = parameters[name].numel() if kind == "parameter" else 1
        if kind == "parameter":
            torch.testing.assert_close(updated[offset:offset + size], parameters[name].detach().flatten(), **FP32)
            checked.append(name)
        offset += size
    assert offset == updated.numel() and sorted(checked) == ["lin.bias", "lin.weight"]
