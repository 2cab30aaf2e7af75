"""Code generation: the Poplar C++ emitter (``ipu-translate --poplar-to-cpp``,
``wrapper.exportPoplarCpp``). It reads only the poplar dialect and never imports torch."""

from .emitter import emit_cpp, emitted_op_names, location_of
from .errors import CodegenError

__all__ = ["CodegenError", "emit_cpp", "emitted_op_names", "location_of"]
