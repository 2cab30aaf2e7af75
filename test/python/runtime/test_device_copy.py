"""The device's copy of an uploaded weight (``runtime/device_store.device_copy``): copy on
write where torch can share the storage, a copy otherwise. Either way a write on one side
never shows on the other, whichever way the tensor was made and written."""

from __future__ import annotations

import textwrap

import torch
from helpers import FP32, run_poisoned

import poptorch
from ipu_mlir.runtime.device_store import device_copy

# Run in a child: a storage torch shares but cannot copy on its first write (one without an
# allocator, as torch.load makes) crashes the process instead of failing the test.
_SOURCES = textwrap.dedent("""
    import io, sys
    import numpy as np
    import torch
    from ipu_mlir.runtime.device_store import device_copy

    def loaded():
        buffer = io.BytesIO()
        torch.save(torch.nn.Linear(6, 8), buffer)
        return torch.load(io.BytesIO(buffer.getvalue()), weights_only=False).weight

    sources = {
        "plain": lambda: torch.nn.Parameter(torch.randn(8, 6)),
        "torch.load": loaded,
        "numpy": lambda: torch.from_numpy(np.random.randn(8, 6).astype(np.float32)),
        "frombuffer": lambda: torch.frombuffer(bytearray(np.random.randn(48).astype(np.float32).tobytes()),
                                               dtype=torch.float32).view(8, 6),
        "shared memory": lambda: torch.randn(8, 6).share_memory_(),
        "view": lambda: torch.randn(16, 6)[4:12],
        "strided": lambda: torch.randn(8, 12)[:, ::2],
    }
    def in_place(t):
        with torch.no_grad():
            t.add_(1.0)

    writes = {
        ".data": lambda t: t.data.mul_(-2.0),
        "no_grad in place": in_place,
        "numpy": lambda t: t.detach().numpy().__setitem__((0, 0), 123.0),
        "copy_": lambda t: t.detach().copy_(torch.zeros(8, 6)),
    }
    shared = []
    for source, make in sources.items():
        for write, apply in writes.items():
            host = make()
            copy = device_copy(host)
            if torch._C._is_cow_tensor(copy):
                shared.append(source)
            before = host.detach().clone()
            assert torch.equal(copy, before), (source, write)
            apply(host)  # the host writes: the device copy keeps the uploaded value
            assert not torch.equal(host.detach(), before), (source, write)
            assert torch.equal(copy, before), (source, write, "the host's write reached the device copy")
        host = make()
        copy = device_copy(host)
        before = host.detach().clone()
        copy.sub_(copy.abs() + 1.0)  # the device writes (an optimizer step): the host keeps its value
        assert torch.equal(host.detach(), before), (source, "the device's write reached the host")
        assert not copy.requires_grad
    print(sorted(set(shared)))
""")


def test_a_write_on_either_side_never_shows_on_the_other() -> None:
    result = run_poisoned(_SOURCES)
    assert result.returncode == 0, result.stderr[-3000:]
    # Shared (no copy until a write) exactly where torch can copy the storage on a write.
    assert result.stdout.strip().splitlines()[-1] == "['plain', 'strided', 'view']"


def test_an_upload_shares_the_weights_until_one_side_writes() -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3)).eval()
    x = torch.randn(4, 6)
    wrapper = poptorch.inferenceModel(model)
    with torch.no_grad():
        before = wrapper(x)
        torch.testing.assert_close(before, model(x), **FP32)
    device = wrapper._stores[0].get("0.weight")
    assert torch._C._is_cow_tensor(device)  # the upload copied nothing
    # The user changes the weight through .data (no version counter sees that): the device
    # keeps the uploaded weight until copyWeightsToDevice, as PopTorch's device copy does.
    model[0].weight.data.mul_(-2.0)
    with torch.no_grad():
        expected = model(x)
        assert not torch.allclose(expected, before)
        torch.testing.assert_close(wrapper(x), before, rtol=0, atol=0)
        wrapper.copyWeightsToDevice()
        torch.testing.assert_close(wrapper(x), expected, **FP32)


def test_device_copy_is_a_copy_of_the_value() -> None:
    value = torch.nn.Parameter(torch.randn(3, 4))
    copy = device_copy(value)
    assert not copy.requires_grad
    assert copy.shape == value.shape and copy.dtype == value.dtype
    torch.testing.assert_close(copy, value.detach(), rtol=0, atol=0)
