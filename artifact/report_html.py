"""The profiling report's HTML page: one self-contained file (inline CSS and SVG, no scripts,
nothing fetched), drawn from the data of :func:`ipu_mlir.artifact.report.report_data`:
memory per IPU and per tile, liveness over the program's steps, the execution timeline of
each IPU for one call, the host tracepoints and the most expensive steps."""

from __future__ import annotations

import html
from typing import Any

_COLOURS = {"compute": "#4e79a7", "copy": "#f28e2b", "sync": "#bab0ac", "host": "#e15759", "streaming": "#76b7b2",
            "collective": "#59a14f", "stash": "#edc948", "stage": "#af7aa1"}
_STYLE = """body{font-family:sans-serif;margin:16px;color:#222}h1{font-size:20px}h3{font-size:13px;margin:8px 0 4px}h2{font-size:16px;margin-top:24px}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
th{background:#eee}.note{color:#666;font-size:12px}svg{background:#fafafa;border:1px solid #ddd}
.legend span{display:inline-block;margin-right:12px;font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}"""


def _e(value: object) -> str:
    return html.escape(str(value))


def _mib(size: float) -> str:
    return f"{size / 2**20:.2f} MiB" if size >= 2**20 else f"{size / 1024:.1f} KiB" if size >= 1024 else f"{int(size)} B"


def _legend(kinds: list[str]) -> str:
    return '<div class="legend">' + "".join(f'<span><i style="background:{_COLOURS.get(k, "#999")}"></i>{_e(k)}</span>'
                                            for k in kinds) + "</div>"


def _memory(memory: list[dict[str, Any]]) -> str:
    rows = ["<table><tr><th>IPU</th><th>variables</th><th>temporaries</th><th>stash</th><th>streaming</th>"
            "<th>total</th><th>capacity</th><th>used</th></tr>"]
    for m in memory:
        rows.append(f"<tr><td>{m['ipu']}</td><td>{_mib(m['variables'])}</td><td>{_mib(m['temporaries'])}</td>"
                    f"<td>{_mib(m['stash'])}</td><td>{_mib(m['streaming'])}</td><td>{_mib(m['total'])}</td>"
                    f"<td>{_mib(m['capacity'])}</td><td>{100 * m['total'] / max(1, m['capacity']):.3f}%</td></tr>")
    rows.append("</table>")
    width = 600
    bars = [f'<svg width="{width + 80}" height="{24 * len(memory) + 8}" role="img" aria-label="memory per IPU">']
    for row, m in enumerate(memory):
        x, y = 60, 4 + 24 * row
        bars.append(f'<text x="4" y="{y + 14}" font-size="12">IPU {m["ipu"]}</text>')
        for key, colour in (("variables", "#4e79a7"), ("temporaries", "#f28e2b"), ("stash", "#edc948")):
            w = width * m[key] / max(1, m["capacity"])
            if w > 0:
                bars.append(f'<rect x="{x:.2f}" y="{y}" width="{max(w, 0.5):.2f}" height="18" fill="{colour}">'
                            f"<title>IPU {m['ipu']} {key}: {_mib(m[key])}</title></rect>")
            x += w
        bars.append(f'<rect x="60" y="{y}" width="{width}" height="18" fill="none" stroke="#999"/>')
    bars.append("</svg>")
    return "".join(rows) + '<p class="note">Bars: share of the IPU\'s memory (variables, temporaries, stash).</p>' + "".join(bars)


def _tiles(memory: list[dict[str, Any]], bytes_per_tile: int) -> str:
    parts = []
    for m in memory:
        tiles = m["tiles"]
        columns = 92
        size = 6
        rows = -(-len(tiles) // columns)
        top = max(tiles, default=0)
        svg = [f'<svg width="{columns * size + 2}" height="{rows * size + 2}" role="img" aria-label="memory per tile of IPU {m["ipu"]}">']
        for index, used in enumerate(tiles):
            share = used / max(1, top)  # shaded relative to the fullest tile
            light = 92 - share * 60 if used else 99
            svg.append(f'<rect x="{1 + (index % columns) * size}" y="{1 + (index // columns) * size}" width="{size - 1}" '
                       f'height="{size - 1}" fill="hsl(210,70%,{light:.0f}%)"><title>tile {index}: {_mib(used)}</title></rect>')
        svg.append("</svg>")
        parts.append(f"<h3>IPU {m['ipu']}: {len(tiles)} tiles, the fullest holds {_mib(top)} of {_mib(bytes_per_tile)} "
                     f"({100 * top / max(1, bytes_per_tile):.2f}%)</h3>" + "".join(svg))
    parts.append('<p class="note">Darker: more bytes, relative to the fullest tile. Variables by their tile mapping; '
                 "temporaries and stash spread evenly.</p>")
    return "".join(parts)


def _liveness(steps: list[dict[str, Any]]) -> str:
    programs: dict[str, list[dict[str, Any]]] = {}
    for step in steps:
        programs.setdefault(step["program"], []).append(step)
    parts = []
    width, height = 700, 100
    for name, entries in programs.items():
        totals = [sum(step["live_bytes"].values()) for step in entries]
        if len(entries) < 2 or not any(totals):
            continue
        top = max(totals)
        points = " ".join(f"{40 + width * i / (len(totals) - 1):.1f},{10 + height * (1 - v / top):.1f}"
                          for i, v in enumerate(totals))
        parts.append(f"<h3>{_e(name)}: peak {_mib(top)} over {len(entries)} steps</h3>"
                     f'<svg width="{width + 50}" height="{height + 30}" role="img" aria-label="liveness of {_e(name)}">'
                     f'<polyline points="{points}" fill="none" stroke="#4e79a7" stroke-width="1.5"/>'
                     f'<text x="2" y="16" font-size="10">{_mib(top)}</text><text x="2" y="{height + 10}" font-size="10">0</text>'
                     f'<text x="40" y="{height + 25}" font-size="10">step 0</text>'
                     f'<text x="{width - 10}" y="{height + 25}" font-size="10">{len(entries) - 1}</text></svg>')
    return "".join(parts) or "<p>No program holds temporaries.</p>"


def _timeline(data: dict[str, Any]) -> str:
    spans = data["timeline"]
    total = max(1, data["program"]["cycles_per_call"])
    clock = data["target"]["clock_hz"]
    ipus = sorted({span["ipu"] for span in spans}) or [0]
    width, lane = 1000, 26
    svg = [f'<svg width="{width + 70}" height="{lane * len(ipus) + 30}" role="img" aria-label="execution timeline">']
    for row, ipu in enumerate(ipus):
        svg.append(f'<text x="2" y="{row * lane + 17}" font-size="12">IPU {ipu}</text>')
    for span in spans:
        row = ipus.index(span["ipu"])
        x = 60 + width * span["start"] / total
        w = max(0.4, width * (span["end"] - span["start"]) / total)
        svg.append(f'<rect x="{x:.2f}" y="{row * lane + 4}" width="{w:.2f}" height="{lane - 8}" '
                   f'fill="{_COLOURS.get(span["kind"], "#999")}"><title>IPU {span["ipu"]} {_e(span["kind"])}: '
                   f'{_e(span["label"])}, cycles {span["start"]}-{span["end"]} ({span["end"] - span["start"]})</title></rect>')
    y = lane * len(ipus) + 20
    svg.append(f'<text x="60" y="{y}" font-size="10">0</text><text x="{width + 60}" y="{y}" font-size="10" text-anchor="end">'
               f'{total} cycles = {1e6 * total / clock:.1f} us</text></svg>')
    note = " (truncated: the first spans only)" if data["program"]["timeline_truncated"] else ""
    return _legend(sorted({span["kind"] for span in spans})) + "".join(svg) + f'<p class="note">{len(spans)} spans{note}.</p>'


def _host(spans: list[dict[str, Any]]) -> str:
    if not spans:
        return "<p>No tracepoints recorded (poptorch.profiling.Channel).</p>"
    start = min(s["start"] for s in spans)
    end = max(s["end"] for s in spans)
    channels = sorted({s["channel"] for s in spans})
    width, lane = 900, 22
    svg = [f'<svg width="{width + 130}" height="{lane * len(channels) + 24}" role="img" aria-label="host tracepoints">']
    for row, channel in enumerate(channels):
        svg.append(f'<text x="2" y="{row * lane + 15}" font-size="12">{_e(channel)}</text>')
    for s in spans:
        x = 120 + width * (s["start"] - start) / max(1e-9, end - start)
        w = max(0.5, width * (s["end"] - s["start"]) / max(1e-9, end - start))
        svg.append(f'<rect x="{x:.2f}" y="{channels.index(s["channel"]) * lane + 3}" width="{w:.2f}" height="{lane - 6}" '
                   f'fill="#9c755f"><title>{_e(s["channel"])}: {_e(s["name"])} {1e3 * (s["end"] - s["start"]):.3f} ms</title></rect>')
    svg.append(f'<text x="120" y="{lane * len(channels) + 18}" font-size="10">{1e3 * (end - start):.3f} ms of host time</text></svg>')
    return "".join(svg)


def _top_steps(steps: list[dict[str, Any]], count: int = 30) -> str:
    top = sorted((s for s in steps if s["cycles"] and s["op"] not in ("poplar.program_call", "poplar.program_repeat")),
                 key=lambda s: -s["cycles"])[:count]
    rows = ["<table><tr><th>program</th><th>step</th><th>op</th><th>IPU</th><th>cycles (one run)</th><th>live after</th></tr>"]
    rows += [f"<tr><td>{_e(s['program'])}</td><td>{s['index']}</td><td style='text-align:left'>{_e(s['op'])}</td>"
             f"<td>{s['ipu']}</td><td>{s['cycles']}</td><td>{_mib(sum(s['live_bytes'].values()))}</td></tr>" for s in top]
    return "".join(rows) + "</table>"


def render_html(data: dict[str, Any]) -> str:
    target, program = data["target"], data["program"]
    return (
        f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>ipu-mlir profile</title>"
        f"<style>{_STYLE}</style></head><body>"
        f"<h1>ipu-mlir profile: {_e(target['name'])}</h1>"
        f"<p>One call: <b>{program['cycles_per_call']}</b> cycles = {1e3 * program['seconds_per_call']:.4f} ms at "
        f"{target['clock_hz'] / 1e9:.2f} GHz; calls so far: {program['calls']}. "
        "<span class=\"note\">Emulated estimates from the compiler's cost model (poplar-estimate-cycles) of the "
        "target, not measurements.</span></p>"
        f"<h2>Execution timeline of one call, per IPU</h2>{_timeline(data)}"
        f"<h2>Host tracepoints</h2>{_host(data['host_spans'])}"
        f"<h2>Memory per IPU</h2>{_memory(data['memory'])}"
        f"<h2>Memory per tile</h2>{_tiles(data['memory'], target['bytes_per_tile'])}"
        f"<h2>Liveness over the program's steps</h2>{_liveness(data['steps'])}"
        f"<h2>Most expensive steps</h2>{_top_steps(data['steps'])}"
        "</body></html>"
    )
