// RUN: ipu-opt %s --split-input-file --verify-diagnostics

// Each anchored tensor of poplar.anchors streams through a device-to-host stream of the graph of its own.

// expected-error@+1 {{'poplar.graph' op 'poplar.anchors' anchor "relu" streams through "host.anchor.9", which is not a 'poplar.host_stream' of the graph}}
"poplar.graph"() ({
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64,
    poplar.anchors = [#poplar.anchor<"relu", "host.anchor.9", "all", 1 : i64>]} : () -> ()

// -----

// expected-error@+1 {{'poplar.graph' op 'poplar.anchors' anchor "x" streams through "host.input.x", whose direction is host_to_device, not device_to_host}}
"poplar.graph"() ({
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4xf32>} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64,
    poplar.anchors = [#poplar.anchor<"x", "host.input.x", "all", 1 : i64>]} : () -> ()

// -----

// expected-error@+1 {{'poplar.graph' op 'poplar.anchors' streams two anchors through "host.anchor.0"; each needs its own stream}}
"poplar.graph"() ({
  "poplar.host_stream"() {direction = "device_to_host", name = "host.anchor.0", type = tensor<4xf32>} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64,
    poplar.anchors = [#poplar.anchor<"x", "host.anchor.0", "all", 1 : i64>, #poplar.anchor<"y", "host.anchor.0", "final", 1 : i64>]} : () -> ()

// -----

// The mode is one of poplar.OutputMode's; a period other than 1 is every_n's.
// expected-error@+1 {{'poplar.graph' op 'poplar.anchors' entry #0 mode must be one of: all, final, sum, every_n; got "often"}}
"poplar.graph"() ({
  "poplar.host_stream"() {direction = "device_to_host", name = "host.anchor.0", type = tensor<4xf32>} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64,
    poplar.anchors = [#poplar.anchor<"x", "host.anchor.0", "often", 1 : i64>]} : () -> ()

// -----

// expected-error@+1 {{'poplar.graph' op 'poplar.anchors' entry #0 period must be >= 1, and 1 unless the mode is every_n; got 3 with sum}}
"poplar.graph"() ({
  "poplar.host_stream"() {direction = "device_to_host", name = "host.anchor.0", type = tensor<4xf32>} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64,
    poplar.anchors = [#poplar.anchor<"x", "host.anchor.0", "sum", 3 : i64>]} : () -> ()
