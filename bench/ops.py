"""The OpInfo op sweep: which of torch's ops compile and match eager, forward and backward.

Every OpInfo entry with float32 samples (``op_sweep.py`` says how one is checked) runs
in worker processes; the report counts entries that pass, are unsupported (no lowering),
data-dependent (by design) or fail (capture, mismatch, error, crash, timeout), forward
and backward, lists the failures by reason, and reports Core ATen coverage: which of the
``torch.Tag.core`` op packets have a lowering (read from the lowering registry and the
frontend's decomposition rule) and which ran in a passing sample.

    python bench/ops.py [--limit N] [--ops a,b] [--samples 3] [--workers 1] [--json out.json]
    python bench/ops.py --core      # only the static Core ATen table (a second)
    python3 dev.py ops ...          # the same, in the project's venv
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import op_sweep  # noqa: E402
import op_workers  # noqa: E402
from op_sweep import BACKWARD, FORWARD, PASS, REASONS, SKIP  # noqa: E402

# Core ATen packets that cannot exist in a static IPU program (SEMANTICS: compile errors).
CORE_EXCEPTIONS = ("nonzero", "_local_scalar_dense", "sym_is_contiguous", "sym_numel", "sym_size",
                   "sym_storage_offset", "sym_stride")
FAILED = ("capture", "mismatch", "error", "crash", "timeout")


def core_packets() -> dict[str, list]:
    """The ATen op packets with an overload tagged ``torch.Tag.core``, and those overloads."""
    import torch

    # Every registered schema: dir(torch.ops.aten) lists only the packets loaded so far
    # (160 core ones right after ``import torch``, more once other code touched them).
    names = sorted({s.name.split("::", 1)[1] for s in torch._C._jit_get_all_schemas() if s.name.startswith("aten::")})
    packets: dict[str, list] = {}
    for name in names:
        packet = getattr(torch.ops.aten, name)
        core = [getattr(packet, o) for o in packet.overloads() if torch.Tag.core in getattr(packet, o).tags]
        if core:
            packets[name] = core
    return packets


def core_coverage(exercised: set[str] = frozenset()) -> dict[str, Any]:
    """Which core packets have a lowering for every core overload (``decompositions.is_lowered``:
    a pattern in ``convert-torch-to-poplar``'s registry), which are exceptions by design,
    which are missing (with the overloads that lack one) and which a passing sample ran."""
    from ipu_mlir.compiler.frontend.decompositions import is_lowered

    packets = core_packets()
    lowered, missing = [], {}
    for name, overloads in sorted(packets.items()):
        lacking = [str(o) for o in overloads if not is_lowered(o)]
        if name in CORE_EXCEPTIONS:
            continue
        if lacking:
            missing[name] = lacking
        else:
            lowered.append(name)
    return {"packets": len(packets), "exceptions": [p for p in CORE_EXCEPTIONS if p in packets],
            "lowered": lowered, "missing": missing,
            "exercised": sorted(p for p in packets if p in exercised),
            "not_exercised": sorted(p for p in lowered if p not in exercised)}


def select_entries(names: str | None, limit: int | None) -> list[str]:
    """Entry names to run: those named (an OpInfo name without variant takes all its
    variants: ``max`` is ``max.reduction_with_dim``, ``max.binary``...), the first ``limit``."""
    db = op_sweep.float32_entries()
    entries = list(db)
    if names:
        wanted = [n.strip() for n in names.split(",") if n.strip()]
        unknown = [w for w in wanted if not any(e == w or db[e].name == w for e in entries)]
        if unknown:
            sys.exit(f"no float32 OpInfo entry named {', '.join(unknown)} (names as in op_db: 'add', "
                     f"'nn.functional.conv2d', 'max.reduction_with_dim')")
        entries = [e for e in entries if e in wanted or db[e].name in wanted]
    return entries[:limit] if limit else entries


def summarize(results: list[dict]) -> dict[str, Any]:
    """Per mode: the entries by status, percentages over the entries that ran a sample,
    failures grouped by reason, and the missing lowerings with the entries they block."""
    summary: dict[str, Any] = {}
    for mode in (FORWARD, BACKWARD):
        statuses = {r["op"]: op_sweep.entry_status(r) for r in results if r["mode"] == mode}
        counts = collections.Counter(status for status, _ in statuses.values())
        ran = sum(counts.values()) - counts[SKIP]
        by_reason: dict[str, dict[str, str]] = {}
        blocking: dict[str, list[str]] = collections.defaultdict(list)
        for op, (status, detail) in sorted(statuses.items()):
            if status not in (PASS, SKIP):
                by_reason.setdefault(status, {})[op] = detail
            if detail.startswith("unsupported op "):
                for name in detail.removeprefix("unsupported op ").split(", "):
                    blocking[name].append(op)
        summary[mode] = {
            "entries": len(statuses), "ran": ran, "pass": counts[PASS], "skip": counts[SKIP],
            "unsupported": counts["unsupported"], "data-dependent": counts["data-dependent"],
            "failed": sum(counts[r] for r in FAILED), "by_count": {r: counts[r] for r in REASONS if counts[r]},
            "pass_percent": round(100.0 * counts[PASS] / ran, 1) if ran else 0.0,
            "random": sorted(r["op"] for r in results if r["mode"] == mode and r["random"]),
            "failures": by_reason,
            "missing_lowerings": dict(sorted(blocking.items(), key=lambda kv: (-len(kv[1]), kv[0]))),
        }
    return summary


def core_report(core: dict[str, Any], exercised: bool) -> str:
    """The Core ATen lines: packets lowered, missing, and (after a sweep) exercised."""
    lowered, packets, exceptions = len(core["lowered"]), core["packets"], len(core["exceptions"])
    out = [f"Core ATen: {lowered} of {packets - exceptions} op packets lowered ({packets} tagged core, "
           f"{exceptions} exceptions by design: {', '.join(core['exceptions'])})"
           + (f"; {len(core['exercised'])} exercised by a passing sample." if exercised else ".")]
    if core["missing"]:
        out.append("Core packets without a lowering: " + ", ".join(sorted(core["missing"])))
    if exercised and core["not_exercised"]:
        out.append("Lowered but exercised by no passing sample: " + ", ".join(core["not_exercised"]))
    return "\n".join(out)


def report(summary: dict[str, Any], core: dict[str, Any], seconds: float | None = None) -> str:
    """The coverage table and the failures by reason, as Markdown."""
    out = ["| mode | entries | ran | pass | unsupported | data-dependent | failed | pass % |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for mode in (FORWARD, BACKWARD):
        s = summary[mode]
        if s["entries"]:
            out.append(f"| {mode} | {s['entries']} | {s['ran']} | {s['pass']} | {s['unsupported']} | "
                       f"{s['data-dependent']} | {s['failed']} | {s['pass_percent']}% |")
    out.append("")
    out.append("'ran' leaves out entries none of whose samples eager can run or train (no float output); "
               "'pass %' is pass / ran. Random ops are compared by structure, shapes and dtypes only.")
    for mode in (FORWARD, BACKWARD):
        s = summary[mode]
        if s["by_count"]:
            out.append(f"\n{mode} failures by reason: " + ", ".join(f"{r} {n}" for r, n in s["by_count"].items()))
    out.append("\n" + core_report(core, exercised=True))
    for mode in (FORWARD, BACKWARD):
        s = summary[mode]
        if s["missing_lowerings"]:
            out.append(f"\n{mode}, missing lowerings (entries blocked):")
            out += [f"- {name} ({len(ops)}): {', '.join(ops)}" for name, ops in s["missing_lowerings"].items()]
        for reason in REASONS:
            if reason == "unsupported" or reason not in s["failures"]:
                continue
            out.append(f"\n{mode}, {reason}:")
            out += [f"- {op}: {detail}" for op, detail in s["failures"][reason].items()]
        uses = {op: d for op, d in s["failures"].get("unsupported", {}).items() if not d.startswith("unsupported op ")}
        if uses:
            out.append(f"\n{mode}, unsupported uses:")
            out += [f"- {op}: {detail}" for op, detail in uses.items()]
    if seconds is not None:
        out.append(f"\nSweep time: {seconds / 60:.1f} min.")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", help="comma-separated OpInfo names (a name without variant takes all its variants)")
    parser.add_argument("--limit", type=int, help="only the first N entries")
    parser.add_argument("--samples", type=int, default=3, help="samples per entry and mode (default 3)")
    parser.add_argument("--forward-only", action="store_true", help="skip the training step")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per entry and mode (default 300)")
    parser.add_argument("--max-tasks", type=int, default=25, help="tasks per worker before it is replaced")
    parser.add_argument("--json", type=Path, help="write every sample's result and the summary here")
    parser.add_argument("--markdown", type=Path, help="write the report here too")
    parser.add_argument("--core", action="store_true", help="only the static Core ATen coverage")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)

    if args.core:
        print(core_report(core_coverage(), exercised=False))
        return 0
    start = time.perf_counter()
    entries = select_entries(args.ops, args.limit)
    db = op_sweep.float32_entries()
    tasks = [{"op": e, "mode": FORWARD, "samples": args.samples} for e in entries]
    if not args.forward_only:
        tasks += [{"op": e, "mode": BACKWARD, "samples": args.samples} for e in entries if db[e].supports_autograd]
    results = []
    for index, result in enumerate(op_workers.run_pool(tasks, workers=args.workers, timeout=args.timeout,
                                                     max_tasks=args.max_tasks), 1):
        results.append(result)
        if not args.quiet:
            status, detail = op_sweep.entry_status(result)
            print(f"[{index}/{len(tasks)}] {result['op']} {result['mode']}: {status}"
                  + (f" - {detail[:160]}" if status != PASS else ""), file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    exercised = {p for r in results for p in r["aten"]}
    summary, core = summarize(results), core_coverage(exercised)
    text = report(summary, core, seconds)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "core": core, "results": results, "seconds": seconds},
                                        indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
