"""The program structure of ``ipu-translate --poplar-to-cpp``: each ``poplar.function`` as a
``poplar::Function``, the main program's Sequence / Repeat / If / Call / Copy / Sync, the
pipeline schedule's stages and inter-IPU channels, and every compute op through its
emission in ``compute*.py``. A mixin of the graph emitter (``emitter.py``), which holds the
names, shapes and storage of values."""

from __future__ import annotations

from typing import Any

from .compute import EMITTERS
from .compute_fft import COMPLEX_OPS, is_complex
from .cpp_text import cstr, location_of, sanitize
from .errors import CodegenError


class ProgramEmitter:
    """Programs and blocks: appends C++ lines to ``self._out``."""

    def _function(self, op: Any) -> None:
        name = self.attr(op, "name")
        seq = self.fresh("f_" + sanitize(name) + "_")
        out = self._out
        out.append(f"  // function '{name}'")
        out.append(f"  poplar::program::Sequence {seq};")
        self._block(self.body(op), seq, "  ")
        fn = "fn_" + sanitize(name)
        self.functions[name] = fn
        out.append(f"  poplar::Function {fn} = graph.addFunction({seq});")
        out.append("")

    def _program_sequence(self, op: Any) -> str:
        name = self.attr(op, "name") if "name" in op.operation.attributes else "program"
        seq = self.fresh("p_" + sanitize(name) + "_")
        self._out.append(f"  // program '{name}'")
        self._out.append(f"  poplar::program::Sequence {seq};")
        if self.uses_random and not self._seeded:
            self._seeded = True
            self._out += ["  // every run draws from the seed on: each draw takes the generator's next numbers",
                          f"  poprand::setSeed(graph, randomSeed, 0, {seq}, \"randomSeed\");"]
        self._block(self.body(op), seq, "  ")
        return seq

    def _block(self, block: Any, seq: str, indent: str) -> None:
        out = self._out
        for op in block.operations:
            name = op.operation.name
            where = location_of(op.operation)
            out.append(f"{indent}// {name.removeprefix('poplar.')}" + ("" if where == "unknown" else f" ({where})"))
            if name == "poplar.program_repeat":
                body = self.fresh("repeat")
                out.append(f"{indent}poplar::program::Sequence {body};")
                self._block(self.body(op), body, indent)
                out.append(f"{indent}{seq}.add(poplar::program::Repeat({self.attr(op, 'count')}, {body}));")
            elif name == "poplar.program_if":
                then, otherwise = self.fresh("then"), self.fresh("otherwise")
                for body, region in ((then, op.regions[0]), (otherwise, op.regions[1])):
                    out.append(f"{indent}poplar::program::Sequence {body};")
                    for b in region.blocks:
                        self._block(b, body, indent)
                out.append(f"{indent}{seq}.add(poplar::program::If({self.name(op.operands[0])}, {then}, {otherwise}));")
            elif name == "poplar.program_sequence":
                inner = self.fresh("seq")
                out.append(f"{indent}poplar::program::Sequence {inner};")
                self._block(self.body(op), inner, indent)
                out.append(f"{indent}{seq}.add({inner});")
            elif name == "poplar.constant":
                out += [indent + line for line in self._constant(op)[1:]]
            elif name == "pipeline.schedule":
                out.append(f"{indent}// {self.attr(op, 'kind')} schedule of {self.attr(op, 'num_stages')} stages on "
                           f"{self.attr(op, 'num_ipus')} IPUs: the stages run in order for each micro-batch")
                self._block(self.body(op), seq, indent)
            elif name == "pipeline.stage":
                stage = self.fresh(f"stage{self.attr(op, 'stage_id')}_")
                out.append(f"{indent}poplar::program::Sequence {stage};  // stage {self.attr(op, 'stage_id')} on IPU {self.attr(op, 'ipu_id')}")
                self._block(self.body(op), stage, indent)
                out.append(f"{indent}{seq}.add({stage});")
            elif name in ("pipeline.send", "pipeline.recv"):
                value = op.operands[0] if name == "pipeline.send" else op.results[0]
                channel = self._channel(op, value, indent)
                if name == "pipeline.send":
                    out.append(f"{indent}{seq}.add(poplar::program::Copy({self.name(value)}, {channel}));  "
                               f"// inter-IPU copy: IPU {self.attr(op, 'src_ipu')} -> IPU {self.attr(op, 'dst_ipu')}")
                else:
                    self.names[value] = channel
                    self.ipus[value] = self.attr(op, "dst_ipu")
            elif name in ("pipeline.remote_load", "pipeline.remote_store"):
                self._pipeline_remote_copy(op, seq, indent)
            elif name == "poplar.program_call":
                callee = self.attr(op, "callee")
                if callee not in self.functions:
                    raise CodegenError(f"{self.where(op)}: calls '{callee}', which is not a poplar.function defined before it")
                out.append(f"{indent}{seq}.add(poplar::program::Call({self.functions[callee]}));")
            elif name == "poplar.program_copy":
                src, dst = op.operands
                a, b = self.ipus.get(src, 0), self.ipus.get(dst, 0)
                note = f"  // inter-IPU copy: IPU {a} -> IPU {b}" if a != b else ""
                out.append(f"{indent}{seq}.add(poplar::program::Copy({self.name(src)}, {self.name(dst)})));{note}".replace(")));", "));"))
            elif name == "poplar.program_stream_copy":
                stream = self.attr(op, "stream")
                if stream not in self.streams:
                    raise CodegenError(f"{self.where(op)}: copies stream '{stream}', which no poplar.host_stream declares")
                var, tensor = "s_" + sanitize(stream), self.name(op.operands[0])
                args = f"{var}, {tensor}" if self.streams[stream][0] == "host_to_device" else f"{tensor}, {var}"
                out.append(f"{indent}{seq}.add(poplar::program::Copy({args}));")
            elif name in ("poplar.program_remote_load", "poplar.program_remote_store"):
                buffer = self.attr(op, "buffer")
                if buffer not in self.remote_buffers:
                    raise CodegenError(f"{self.where(op)}: copies remote buffer '{buffer}', which no poplar.remote_buffer declares")
                pair = (self.remote_buffers[buffer], self.name(op.operands[0]))
                src, dst = pair if name.endswith("load") else pair[::-1]
                out.append(f"{indent}{seq}.add(poplar::program::Copy({src}, {dst}));")
            elif name == "poplar.program_print_tensor":
                if "poplar.print_format" in op.operation.attributes:
                    raise CodegenError(f"{self.where(op)}: a print with a layout (poplar.print_format, from "
                                       "ipu_print_tensor's formatting arguments) is not emitted as C++ yet (no "
                                       "PrintTensorFmt); print with the default layout")
                out.append(f"{indent}{seq}.add(poplar::program::PrintTensor({cstr(self.attr(op, 'title'))}, {self.name(op.operands[0])}));")
            elif name == "poplar.program_sync":
                kind = self.attr(op, "kind") if "kind" in op.operation.attributes else "internal"
                out.append(f"{indent}{seq}.add(poplar::program::Sync(poplar::SyncType::{kind.upper()}));")
            elif name in EMITTERS:
                if name not in COMPLEX_OPS and any(is_complex(v) for v in [*op.operands, *op.results]):
                    raise CodegenError(f"{self.where(op)} on complex values has no emission yet (a complex<f32> tensor "
                                       "is a FLOAT tensor of (real, imaginary) pairs, which only the FFT ops, "
                                       "view_as_real / view_as_complex, copies and streams use); take "
                                       "torch.view_as_real of the spectrum and compute on its real tensor")
                saved, self.prog = self.prog, seq
                try:
                    lines = EMITTERS[name](self, op)
                finally:
                    self.prog = saved
                out += [indent + line for line in lines]
            else:
                raise CodegenError(f"{self.where(op)} has no C++ emission yet "
                                   f"(emitted compute ops: {', '.join(sorted(n.removeprefix('poplar.') for n in EMITTERS))})")

    def _pipeline_remote_copy(self, op: Any, seq: str, indent: str) -> None:
        """A value moved to streaming memory between its uses (a phase's off-chip liveness,
        off-chip activations): ``remote_store`` copies it into its remote buffer; ``remote_load``
        gives the value a new tensor on the op's IPU, laid out linearly, and copies the buffer into it."""
        buffer = self.attr(op, "buffer")
        if buffer not in self.remote_buffers:
            raise CodegenError(f"{self.where(op)}: copies remote buffer '{buffer}', which no poplar.remote_buffer declares")
        remote, ipu = self.remote_buffers[buffer], self.attr(op, "ipu_id")
        if op.operation.name == "pipeline.remote_store":
            self._out.append(f"{indent}{seq}.add(poplar::program::Copy({self.name(op.operands[0])}, {remote}));")
            return
        value = op.results[0]
        var = self.define(value, "loaded", ipu=ipu)
        self._out += [f"{indent}poplar::Tensor {var} = ipu[{ipu}].addVariable(poplar::{self.ptype(value)}, "
                      f"{{{', '.join(map(str, self.shape(value)))}}}, {cstr(buffer)});  // loaded from '{buffer}'",
                      f"{indent}mapLinearly(ipu[{ipu}], {var}, 0, 1);",
                      f"{indent}{seq}.add(poplar::program::Copy({remote}, {var}));"]

    def _channel(self, op: Any, value: Any, indent: str) -> str:
        """The tensor on the receiving IPU that a send / recv channel copies into (declared
        by whichever of the pair comes first)."""
        channel = self.attr(op, "channel")
        if channel not in self.channels:
            var = self.fresh("x_" + sanitize(channel) + "_")
            dst = self.attr(op, "dst_ipu")
            self._out += [f"{indent}poplar::Tensor {var} = ipu[{dst}].addVariable(poplar::{self.ptype(value)}, "
                          f"{{{', '.join(map(str, self.shape(value)))}}}, {cstr(channel)});  // channel '{channel}'",
                          f"{indent}mapLinearly(ipu[{dst}], {var}, 0, 1);"]
            self.channels[channel] = var
        return self.channels[channel]
