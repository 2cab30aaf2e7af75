"""Emulated performance counters: what PopTorch's ``cycleCount()``, ``getPerfCounters()`` and
latency getters return, driven by the cost model on every call.

The timeline of one host call (``artifact.profile.call_timeline``: every host stream
transfer with its start and end cycle, from the ``poplar.cycles`` estimates) is computed once
per program; each call then advances an emulated clock by the call's cycles. Counter values
are seconds on that clock, as PopTorch's are seconds on the host's (whose reference point
is undefined). Everything here is an estimate of a model of the chip, not a measurement.
"""

from __future__ import annotations

from torch_mlir import ir

from ipu_mlir.artifact.profile import CallTimeline, call_timeline

COUNTER_KEYS = ("input", "input_complete", "output", "output_complete")


class CallRecord:
    """One host call: its cycles and PopTorch's counters, ``counters[key][index][iteration]``
    (computed when first read: most calls never read them)."""

    def __init__(self, cycles: int, timeline: CallTimeline, base: int) -> None:
        self.cycles = cycles
        self._timeline, self._base = timeline, base
        self._counters: dict[str, list[list[float]]] | None = None

    @property
    def counters(self) -> dict[str, list[list[float]]]:
        if self._counters is None:
            tl, base = self._timeline, self._base
            counters: dict[str, list[list[float]]] = {key: [] for key in COUNTER_KEYS}
            for direction, streams in (("input", tl.inputs), ("output", tl.outputs)):
                for stream in streams:
                    transfers = [t for t in tl.transfers if t.stream == stream]
                    counters[direction].append([tl.seconds(base + t.start) for t in transfers])
                    counters[direction + "_complete"].append([tl.seconds(base + t.end) for t in transfers])
            self._counters = counters
        return self._counters

    def latency(self, kind: str) -> tuple[float, float, float]:
        """(min, max, average) seconds over the call's iterations of one of PopTorch's latencies:
        "round_trip" (first input requested -> last output written to the host), "compute" (last
        input on the IPU -> last output requested), "host_ipu" (first input requested -> last
        input on the IPU), "ipu_host" (first output requested -> last output on the host)."""
        c = self.counters
        iterations = min((len(values) for key in COUNTER_KEYS for values in c[key]), default=0)
        samples = []
        for i in range(iterations):
            first_in = min((values[i] for values in c["input"]), default=None)
            last_in = max((values[i] for values in c["input_complete"]), default=None)
            first_out = min((values[i] for values in c["output"]), default=None)
            last_out_request = max((values[i] for values in c["output"]), default=None)
            last_out = max((values[i] for values in c["output_complete"]), default=None)
            span = {"round_trip": (first_in, last_out), "compute": (last_in, last_out_request),
                    "host_ipu": (first_in, last_in), "ipu_host": (first_out, last_out)}[kind]
            if None not in span:
                samples.append(max(0.0, span[1] - span[0]))
        if not samples:
            return (0.0, 0.0, 0.0)
        return (min(samples), max(samples), sum(samples) / len(samples))


class PerfCounters:
    """The counters of one compiled program over its calls."""

    def __init__(self, graph: ir.Operation) -> None:
        self.timeline: CallTimeline = call_timeline(graph)
        self.elapsed = 0  # cycles of every call so far: the emulated clock
        self.calls = 0
        self.last: CallRecord | None = None

    def record_call(self) -> CallRecord:
        """Advance the clock by one host call and return its counters."""
        tl = self.timeline
        self.last = CallRecord(tl.cycles, tl, self.elapsed)
        self.elapsed += tl.cycles
        self.calls += 1
        return self.last
