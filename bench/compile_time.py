"""Compile time and memory (issue 19 items 4 and 5): the first call of BERT-base and GPT-2-small
training, each in a new process, split into its parts, with the peak RSS of the compile and of
the steps against eager PyTorch's.

Models (``--models``, default ``bert,gpt2``):

- ``bert``: BERT-base, 12 ``nn.TransformerEncoder`` layers of 768 (``training.bert(12)``), batch
  4 x 128, MSE loss, SGD with momentum, on ONE IPU with the weights and the optimizer state off
  chip (``bench/locations.py``'s placement: on chip it needs 1.37 GB of the IPU's 900 MB);
- ``gpt2``: Hugging Face GPT-2 small (12 blocks, 50257-token vocabulary, 124 M parameters;
  ``training.gpt2_small()``), batch 2 x 128, its own loss, SGD with momentum, over four IPUs with
  ``ShardedExecution``: on one IPU it does not fit even with every weight and all optimizer
  state off chip (the 50257-wide head's live temporaries alone are 1.15 GB), so the sharded
  model is what a user runs;
- ``mlp``: a 2-layer MLP for inference, the smallest first call (what the import costs are).

Each row is one new process (interpreter start excluded): ``import torch`` + ``import poptorch``
(imports), then the model is built, then ``wrapper.compile(*inputs)`` is the first call's
compile (the goal: BERT-base <= 3 s, GPT-2-small <= 4 s), split by ``CompiledProgram.timings``
into capture (the joint forward + backward trace, which also finds the loss, and the import to
MLIR), passes (each pass, the input's reproducer, MLIR's passes, the final verification) and
decode (the artifact, the runtime's program); then the first step (``wrapper(*inputs)``) and
``--steps`` more. Wall and CPU seconds are printed: the machine has 2 cores shared with other
jobs, and under load wall time grows while CPU time much less. The modules the compile imports
are counted; ``--split-imports`` runs each model once more with those modules imported before
the compile and prints that import time (what of the first call is cold imports).

Memory: ``ru_maxrss`` (peak RSS) after building the model, after the compile and after the
steps; eager runs the same model and optimizer for the same steps in a process of its own,
with the host allocator settings the IPU Model's process has (``ipu_mlir.runtime`` loaded).
``--tracemalloc`` also traces the compile's Python allocations (slow) and prints its peak and
largest sites. The steps after the first are timed (median wall seconds, the steady state),
for both. ``--live`` runs one more step op by op and prints the live tensor bytes at the
step's peak by what holds them (the decoder's ``Program.live_bytes``: streaming memory, each
variable kind, temporaries; plus the host's copy of the parameters), against what eager
holds (parameters, gradients, momentum, and the activations saved for the backward pass).

``--against TREE`` runs the same processes on another checkout (``git archive REV | tar -x -C
TREE``) alternately with this one, for a before / after comparison in one run. The children
read compiled ``.pyc`` files from a cache filled first, as an installed package does.

Usage: ``python bench/compile_time.py [--models bert,gpt2,mlp] [--repeats N] [--steps N]
[--against TREE] [--split-imports] [--tracemalloc] [--live]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MARKER = "@@compile-time "
# Where a checkout keeps each package (pyproject.toml's package-dir).
PACKAGES = {"ipu_mlir": "python/ipu_mlir", "ipu_mlir.artifact": "artifact", "ipu_mlir.compiler": "compiler",
            "ipu_mlir.dialects": "dialects", "ipu_mlir.driver": "driver", "ipu_mlir.runtime": "runtime",
            "ipu_mlir.support": "support", "ipu_mlir.tools": "tools", "poptorch": "python/poptorch"}


def _use_tree(tree: Path) -> None:
    """Import ipu_mlir and poptorch from ``tree`` instead of the installed checkout."""
    import importlib.util

    class Finder:
        @classmethod
        def find_spec(cls, fullname: str, path: object = None, target: object = None) -> object:
            if fullname not in PACKAGES:
                return None
            folder = tree / PACKAGES[fullname]
            return importlib.util.spec_from_file_location(fullname, folder / "__init__.py",
                                                          submodule_search_locations=[str(folder)])

    sys.meta_path.insert(0, Finder)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = _clock()
    return wall - start[0], cpu - start[1]


def _storage_bytes(tensors) -> int:  # noqa: ANN001 - an iterable of tensors
    """The bytes of the distinct storages of ``tensors``."""
    sizes = {t.untyped_storage()._cdata: t.untyped_storage().nbytes() for t in tensors}
    return sum(sizes.values())


def _eager_live(model, optimizer, inputs) -> dict[str, int]:  # noqa: ANN001
    """What eager holds in one more step: parameters, gradients, optimizer state, and the
    activations the forward saved for the backward pass (distinct storages, at the end of
    the forward)."""
    import torch

    saved: list = []

    def pack(tensor):  # noqa: ANN001, ANN202
        saved.append(tensor)
        return tensor

    optimizer.zero_grad()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        loss = model(*inputs)[-1]
    params = {t.untyped_storage()._cdata for t in model.parameters()}
    activations = _storage_bytes(t for t in saved if t.untyped_storage()._cdata not in params)
    saved.clear()
    loss.backward()
    optimizer.step()
    state = [v for entry in optimizer.state.values() for v in entry.values() if hasattr(v, "untyped_storage")]
    return {"parameters": _storage_bytes(model.parameters()),
            "gradients": _storage_bytes(p.grad for p in model.parameters() if p.grad is not None),
            "optimizer state": _storage_bytes(state), "saved activations": activations}


def _ipu_live(wrapper, inputs) -> dict[str, int]:  # noqa: ANN001
    """The device's live tensor bytes by kind at the peak of one more step, op by op, and
    the host's copy of the parameters."""
    with wrapper._compiled.program.peak_live_bytes(wrapper._stores) as peak:
        wrapper(*inputs)
    return peak | {"host parameters": _storage_bytes(wrapper.model.parameters())}


def _build(name: str):  # noqa: ANN202 - (model, inputs, options or None)
    import torch

    import poptorch
    from training import bert, gpt2_small

    torch.manual_seed(0)
    if name == "bert":
        model, inputs = bert(12)
        options = poptorch.Options()
        off_chip = poptorch.TensorLocationSettings().useOnChipStorage(False)
        options.TensorLocations.setOptimizerLocation(off_chip)
        options.TensorLocations.setWeightLocation(off_chip)
        return model, inputs, options
    if name == "gpt2":
        return gpt2_small()
    if name == "mlp":
        model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
        return model, (torch.randn(8, 64),), None
    raise ValueError(f"unknown model {name!r}: the models are bert, gpt2, mlp")


def child(name: str, steps: int, eager: bool, preimport: list[str], trace: bool, live: bool = False) -> None:
    """One measurement in this (new) process; prints one MARKER line of JSON."""
    result: dict = {}
    start = _clock()
    import torch

    import poptorch

    result["imports"] = _since(start)
    sys.path.insert(0, str(HERE))
    start = _clock()
    model, inputs, options = _build(name)
    result["build"], result["rss_built"] = _since(start), _peak_mb()
    training = name != "mlp"
    if eager:
        import ipu_mlir.runtime  # noqa: F401 - the host allocator settings the IPU Model's process runs with

        optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9) if training else None
        start = _clock()
        result["step_times"] = []
        for step in range(1 + steps):
            begin = time.perf_counter()
            if training:
                optimizer.zero_grad()
                model(*inputs)[-1].backward()
                optimizer.step()
            else:
                with torch.no_grad():
                    model(*inputs)
            if step == 0:
                result["first_step"], result["rss_first_step"] = _since(start), _peak_mb()
            else:
                result["step_times"].append(time.perf_counter() - begin)
        result["rss_steps"] = _peak_mb()
        if live and training:
            result["live"] = _eager_live(model, optimizer, inputs)
        print(MARKER + json.dumps(result), flush=True)
        return
    if preimport:
        import importlib

        start = _clock()
        for module in preimport:
            try:
                importlib.import_module(module)
            except Exception:  # noqa: BLE001 - a module that only imports in its own context
                pass
        result["preimport"] = _since(start)
    if training:
        wrapper = poptorch.trainingModel(model, options or poptorch.Options(),
                                         torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9))
    else:
        wrapper = poptorch.inferenceModel(model, options or poptorch.Options())
    before = set(sys.modules)
    if trace:
        import tracemalloc

        tracemalloc.start(8)
    start = _clock()
    wrapper.compile(*inputs)
    result["compile"], result["rss_compiled"] = _since(start), _peak_mb()
    if trace:
        snapshot = tracemalloc.take_snapshot()
        result["traced_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        result["traced_top"] = [f"{stat.size / 2**20:.1f} MB {stat.traceback[0]}"
                                for stat in snapshot.statistics("lineno")[:8]]
    result["modules"] = sorted(set(sys.modules) - before)
    result["timings"] = dict(wrapper._compiled.timings)
    start = _clock()
    result["step_times"] = []
    for step in range(1 + steps):
        begin = time.perf_counter()
        wrapper(*inputs)
        if step == 0:
            result["first_step"], result["rss_first_step"] = _since(start), _peak_mb()
        else:
            result["step_times"].append(time.perf_counter() - begin)
    result["rss_steps"] = _peak_mb()
    if live:
        result["live"] = _ipu_live(wrapper, inputs)
    print(MARKER + json.dumps(result), flush=True)


def _run(name: str, tree: Path | None, pycache: str, steps: int, eager: bool = False,
         preimport: list[str] | None = None, trace: bool = False, live: bool = False) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", name, "--steps", str(steps)]
    command += ["--tree", str(tree)] if tree is not None else []
    command += ["--eager"] if eager else []
    command += ["--tracemalloc"] if trace else []
    command += ["--live"] if live else []
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    with tempfile.NamedTemporaryFile("w", suffix=".json") as modules:
        if preimport:
            json.dump(preimport, modules)
            modules.flush()
            command += ["--preimport", modules.name]
        done = subprocess.run(command, capture_output=True, text=True, timeout=3600, env=env, cwd=ROOT)
    lines = [line for line in done.stdout.splitlines() if line.startswith(MARKER)]
    if done.returncode or not lines:
        raise RuntimeError(f"{name} ({tree or 'this tree'}) failed:\n{done.stderr[-3000:]}")
    return json.loads(lines[-1][len(MARKER):]) | {"load": os.getloadavg()[0]}


def _span(values: list[float], digits: int = 2) -> str:
    low, high = min(values), max(values)
    text = f"{low:.{digits}f}"
    return text if f"{high:.{digits}f}" == text else f"{text}-{high:.{digits}f}"


def _parts(rows: list[dict], prefix: str, top: int) -> str:
    """The largest ``prefix``-keys of the rows' timings, as ``name range`` pairs."""
    keys = {key for row in rows for key in row["timings"] if key.startswith(prefix)}
    ranked = sorted(keys, key=lambda key: -statistics.median(row["timings"].get(key, 0.0) for row in rows))
    return ", ".join(f"{key[len(prefix):]} {_span([row['timings'].get(key, 0.0) for row in rows])}" for key in ranked[:top])


def _report(label: str, rows: list[dict], eager: list[dict]) -> None:
    def wall(key: str) -> str:
        return _span([row[key][0] for row in rows])

    def cpu(key: str) -> str:
        return _span([row[key][1] for row in rows])

    def timing(key: str) -> str:
        return _span([row["timings"].get(key, 0.0) for row in rows])

    decode_program = [row["timings"].get("decode", 0.0) - row["timings"].get("decode.artifact", 0.0) for row in rows]
    print(f"  {label}: compile {wall('compile')} s wall, {cpu('compile')} s CPU (imports before it {wall('imports')} s; "
          f"the compile imports {_span([len(r['modules']) for r in rows], 0)} more modules; load {_span([r['load'] for r in rows], 1)})")
    print(f"    capture {timing('capture')} s: {_parts(rows, 'capture.', 3)}")
    print(f"    passes {timing('passes')} s: {_parts(rows, 'passes.', 8)}")
    print(f"    decode {timing('decode')} s: artifact {timing('decode.artifact')}, program {_span(decode_program)}")
    print(f"    first step {wall('first_step')} s (first call = compile + first step: "
          f"{_span([row['compile'][0] + row['first_step'][0] for row in rows])} s; with the imports "
          f"{_span([row['imports'][0] + row['compile'][0] + row['first_step'][0] for row in rows])} s)")
    peak = "    peak RSS: model built {} MB, after the compile {} MB (compile adds {} MB), after the steps {} MB".format(
        _span([r["rss_built"] for r in rows], 0), _span([r["rss_compiled"] for r in rows], 0),
        _span([r["rss_compiled"] - r["rss_built"] for r in rows], 0), _span([r["rss_steps"] for r in rows], 0))
    if eager:
        peak += (f"; eager after the same steps {_span([r['rss_steps'] for r in eager], 0)} MB (first step "
                 f"{_span([r['first_step'][0] for r in eager])} s)")
    print(peak)
    times = [statistics.median(r["step_times"]) for r in rows if r.get("step_times")]
    eager_times = [statistics.median(r["step_times"]) for r in eager if r.get("step_times")]
    if times:
        line = f"    steady step (median of each process's steps after the first) {_span(times)} s"
        print(line + (f"; eager {_span(eager_times)} s" if eager_times else ""))
    for row in [r for r in rows if "live" in r][:1] + [r for r in eager if "live" in r][:1]:
        who = "eager" if row in eager else "IPU Model"
        parts = ", ".join(f"{kind} {size / 2**20:.0f}" for kind, size in sorted(row["live"].items(), key=lambda kv: -kv[1])
                          if size >= 2**20)
        print(f"    live tensors ({who}{', at the step peak' if who == 'IPU Model' else ''}): "
              f"{sum(row['live'].values()) / 2**20:.0f} MiB: {parts}")
    for row in rows:
        if "traced_peak_mb" in row:
            print(f"    tracemalloc: the compile's Python allocations peak at {row['traced_peak_mb']:.0f} MB; largest:")
            for line in row["traced_top"]:
                print(f"      {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="bert,gpt2", help="comma-separated, of bert, gpt2, mlp")
    parser.add_argument("--repeats", type=int, default=2, help="processes per model and tree")
    parser.add_argument("--steps", type=int, default=2, help="steps after the first (memory)")
    parser.add_argument("--against", type=Path, default=None, help="another checkout, run alternately (before / after)")
    parser.add_argument("--split-imports", action="store_true", help="once more with the compile's modules imported first")
    parser.add_argument("--tracemalloc", action="store_true", help="trace the compile's Python allocations (slow)")
    parser.add_argument("--no-eager", action="store_true", help="skip the eager process (memory comparison)")
    parser.add_argument("--live", action="store_true", help="live tensor bytes at the step's peak, by kind (one more step)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--tree", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--eager", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--preimport", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.tree is not None:
            _use_tree(args.tree.resolve())
        preimport = json.loads(Path(args.preimport).read_text()) if args.preimport else []
        child(args.child, args.steps, args.eager, preimport, args.tracemalloc, args.live)
        return
    trees: list[tuple[str, Path | None]] = [("this tree", None)]
    if args.against is not None:
        trees.insert(0, (f"before ({args.against})", args.against.resolve()))
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    print(f"first call in a new process; {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"{args.repeats} processes per model and tree, alternating")
    with tempfile.TemporaryDirectory() as pycache:
        for name in models:
            for _, tree in trees:  # fills the .pyc cache: no measured process compiles Python source
                _run(name, tree, pycache, 0)
            rows: dict[str, list[dict]] = {label: [] for label, _ in trees}
            for _ in range(args.repeats):
                for label, tree in trees:
                    rows[label].append(_run(name, tree, pycache, args.steps, trace=args.tracemalloc, live=args.live))
            if args.split_imports:
                for label, tree in trees:
                    rows[label].append(_run(name, tree, pycache, args.steps, preimport=rows[label][0]["modules"]))
            eager = [] if args.no_eager else [_run(name, None, pycache, args.steps, eager=True, live=args.live)]
            print(f"{name}:")
            for label, _ in trees:
                _report(label, [r for r in rows[label] if "preimport" not in r] or rows[label], eager)
                split = [r for r in rows[label] if "preimport" in r]
                if split:
                    row = split[0]
                    print(f"    with the compile's {len(rows[label][0]['modules'])} modules imported first "
                          f"({row['preimport'][0]:.2f} s wall, {row['preimport'][1]:.2f} s CPU): compile "
                          f"{row['compile'][0]:.2f} s wall, {row['compile'][1]:.2f} s CPU")


if __name__ == "__main__":
    main()
