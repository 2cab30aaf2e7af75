"""The executable file (artifact/executable_file.py): a round trip keeps everything, and a
truncated, bit-flipped, other-version or foreign file is refused with an error that names
the file and the problem, before anything is decoded."""

from __future__ import annotations

import json

import pytest
import torch

from ipu_mlir.artifact.executable_file import FORMAT_VERSION, MAGIC, ExecutableFile, ExecutableFileError
from ipu_mlir.driver import CompileOptions, compile_program
from ipu_mlir.driver.executable_io import export_compiled, load_compiled


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, bytes]:
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh())
    compiled = compile_program(model, (torch.randn(2, 4),), {}, CompileOptions())
    file = export_compiled(compiled)
    file.rng_state = [7, 3]
    file.model_bytes = b"not read unless asked"
    path = str(tmp_path_factory.mktemp("exe") / "model.ipuexe")
    file.write(path)
    with open(path, "rb") as handle:
        return path, handle.read()


def test_round_trip_keeps_every_section(written: tuple[str, bytes]) -> None:
    path, _ = written
    file = ExecutableFile.read(path)
    assert file.rng_state == [7, 3]
    assert file.model_bytes == b"not read unless asked"
    assert file.executable.metadata["kind"] == "inference"
    assert file.host["capture"]["inputs"] == [{"name": "input", "shape": [2, 4], "dtype": "float32"}]
    compiled = load_compiled(file)
    assert compiled.arguments == [("parameter", "0.weight"), ("parameter", "0.bias")]
    assert [spec.shape for spec in compiled.captured.outputs] == [(2, 3)]


def _write(tmp_path, data: bytes) -> str:  # noqa: ANN001
    path = tmp_path / "bad.ipuexe"
    path.write_bytes(data)
    return str(path)


def test_truncated_file(tmp_path, written: tuple[str, bytes]) -> None:  # noqa: ANN001
    path = _write(tmp_path, written[1][: len(written[1]) // 2])
    with pytest.raises(ExecutableFileError, match=r"bad\.ipuexe'.*truncated"):
        ExecutableFile.read(path)
    with pytest.raises(ExecutableFileError, match="truncated"):
        ExecutableFile.read(_write(tmp_path, written[1][:20]))


@pytest.mark.parametrize("where", [0.3, 0.6, 0.95])
def test_bit_flipped_file(tmp_path, written: tuple[str, bytes], where: float) -> None:  # noqa: ANN001
    data = bytearray(written[1])
    data[int(len(data) * where)] ^= 0x10
    with pytest.raises(ExecutableFileError, match=r"bad\.ipuexe'.*checksum does not match: the file is corrupted"):
        ExecutableFile.read(_write(tmp_path, bytes(data)))


def test_other_format_version(tmp_path, written: tuple[str, bytes]) -> None:  # noqa: ANN001
    data = bytearray(written[1])
    data[len(MAGIC):len(MAGIC) + 4] = (FORMAT_VERSION + 1).to_bytes(4, "little")
    with pytest.raises(ExecutableFileError, match=rf"format version {FORMAT_VERSION + 1}, but this ipu-mlir reads "
                                                  rf"version {FORMAT_VERSION}"):
        ExecutableFile.read(_write(tmp_path, bytes(data)))


def test_other_torch_version(tmp_path, written: tuple[str, bytes], monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(torch, "__version__", "0.0.1")
    with pytest.raises(ExecutableFileError, match=r"model\.ipuexe'.*compiled with torch .* this process runs 0\.0\.1"):
        ExecutableFile.read(written[0])


def test_foreign_and_missing_files(tmp_path) -> None:  # noqa: ANN001
    with pytest.raises(ExecutableFileError, match=r"bad\.ipuexe'.*not an ipu-mlir executable file"):
        ExecutableFile.read(_write(tmp_path, json.dumps({"a": 1}).encode()))
    with pytest.raises(ExecutableFileError, match=r"cannot read executable file '.*nothing\.ipuexe'"):
        ExecutableFile.read(tmp_path / "nothing.ipuexe")


def test_model_section_is_read_only_on_request(tmp_path, written: tuple[str, bytes]) -> None:  # noqa: ANN001
    file = ExecutableFile.read(written[0])
    with pytest.raises(Exception):  # noqa: B017 - garbage is not a pickle: only load_model() tries
        file.load_model()
    file.model_bytes = None
    with pytest.raises(ExecutableFileError, match="export_model=False.*loadExecutable"):
        file.load_model()
