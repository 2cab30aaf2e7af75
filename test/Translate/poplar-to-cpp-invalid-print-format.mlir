// A print with a layout (poplar.print_format) is refused: PrintTensorFmt has no C++ emission yet,
// and emitting the default layout would silently drop the user's formatting.
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s

// CHECK: ipu-translate: error: {{.*}}a print with a layout (poplar.print_format, from ipu_print_tensor's formatting arguments) is not emitted as C++ yet (no PrintTensorFmt); print with the default layout

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3xf32>
    "poplar.function"() ({
      "poplar.program_print_tensor"(%a) {title = "a", poplar.print_format = {digits = 2 : i64}} : (tensor<2x3xf32>) -> ()
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()
