"""Emulated cycle counts, performance counters, latencies and the profiling report of a
PoplarExecutor (PopTorch's ``cycleCount``, ``getPerfCounters``, ``getLatency``,
``getComputeLatency``, ``getHostIpuLatency``, ``getIpuHostLatency``; ``logCycleCount`` and
``enableProfiling`` / ``POPLAR_ENGINE_OPTIONS``).

Every value comes from the compiler's cost model (``poplar-estimate-cycles``) of the
emulated IPU target, recomputed on every call: they are estimates, not measurements.
"""

from __future__ import annotations

import json
import os
from typing import Any

from . import _logging, profiling

ENGINE_OPTIONS_ENV_VAR = "POPLAR_ENGINE_OPTIONS"


def report_directory(profile_dir: str | None) -> str | None:
    """Where the profiling report goes: ``POPLAR_ENGINE_OPTIONS``' autoReport.directory when it
    asks for a report (autoReport.all / outputExecutionProfile / outputGraphProfile /
    outputDebugInfo "true"), which takes precedence over ``enableProfiling(dir)``; None: no report."""
    text = os.environ.get(ENGINE_OPTIONS_ENV_VAR, "").strip()
    if text:
        try:
            options = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"{ENGINE_OPTIONS_ENV_VAR} is not valid JSON ({error}): give an object such as "
                             '{"autoReport.all":"true","autoReport.directory":"./report"}') from None
        if not isinstance(options, dict):
            raise ValueError(f"{ENGINE_OPTIONS_ENV_VAR} must be a JSON object, got {text!r}")
        wanted = any(str(options.get(f"autoReport.{key}", "false")).lower() == "true"
                     for key in ("all", "outputExecutionProfile", "outputGraphProfile", "outputDebugInfo"))
        if wanted:
            return str(options.get("autoReport.directory", profile_dir or "."))
    return profile_dir


class CountersMixin:
    """The counter and latency API of PoplarExecutor; ``_after_call`` runs after every call."""

    _compiled: Any
    _options: Any
    _training: bool
    _perf: Any = None
    _perf_of: Any = None  # the compiled program _perf counts (a recompile or load starts afresh)
    _last_call: Any = None

    def _after_call(self) -> None:
        if self._perf is None or self._perf_of is not self._compiled:
            self._perf, self._perf_of = self._compiled.perf_counters(), self._compiled
        self._last_call = self._perf.record_call()
        if self._options.log_cycle_count:
            _logging.logger.debug("Total number of IPU cycles: %d (emulated estimate, %s)", self._last_call.cycles,
                                  self._perf.timeline.target.name)
        directory = report_directory(self._options.profile_dir)
        if directory is not None:
            self._compiled.write_profile(os.path.join(directory, "training" if self._training else "inference"),
                                         host_spans=profiling.recorded_spans(), calls=self._perf.calls)

    def _require_run(self, api: str) -> Any:
        if self._last_call is None:
            raise RuntimeError(f"{api}: run the model at least once first (the counters describe the last run)")
        return self._last_call

    def cycleCount(self) -> int:  # noqa: N802 - PopTorch's name
        """Cycles the IPU ran for the last call (the first replica's), from the cost model: an estimate.

        As in PopTorch, it needs ``Options.logCycleCount(True)``."""
        if not self._options.log_cycle_count:
            raise RuntimeError("Cycle count logging is disabled. Please set option logCycleCount to True to enable.")
        return int(self._require_run("cycleCount").cycles)

    def getPerfCounters(self) -> dict[str, list[list[float]]]:  # noqa: N802
        """Seconds (on the emulated clock) of each host transfer of the last call:
        ``counters[key][tensor index][iteration]`` for key 'input', 'input_complete', 'output',
        'output_complete'. Estimates from the cost model."""
        call = self._require_run("getPerfCounters")
        return {key: [list(values) for values in lists] for key, lists in call.counters.items()}

    def getLatency(self) -> tuple[float, float, float]:  # noqa: N802
        """(min, max, average) round-trip latency in seconds over the last call's iterations (estimate)."""
        return self._require_run("getLatency").latency("round_trip")

    def getComputeLatency(self) -> tuple[float, float, float]:  # noqa: N802
        """(min, max, average) compute latency in seconds over the last call's iterations (estimate)."""
        return self._require_run("getComputeLatency").latency("compute")

    def getHostIpuLatency(self) -> tuple[float, float, float]:  # noqa: N802
        """(min, max, average) host-to-IPU latency in seconds over the last call's iterations (estimate)."""
        return self._require_run("getHostIpuLatency").latency("host_ipu")

    def getIpuHostLatency(self) -> tuple[float, float, float]:  # noqa: N802
        """(min, max, average) IPU-to-host latency in seconds over the last call's iterations (estimate)."""
        return self._require_run("getIpuHostLatency").latency("ipu_host")
