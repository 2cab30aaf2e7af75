// RUN: ipu-opt %s -p poplar-estimate-cycles --split-input-file | FileCheck %s
// RUN: ipu-opt %s -p 'poplar-estimate-cycles{target=ipu-model-bow}' --split-input-file | FileCheck %s --check-prefix=BOW

// One IPU, Mk2 (GC200 at 1.33 GHz): per tile and cycle 31.9 fp32 AMP FLOPs, 24.3 bytes of
// memory, 5.62 bytes of exchange; a compute set costs a sync (150) + 50 cycles; a tensor of
// B bytes spreads over ceil(B / 128) tiles (at most 1472). 128x128 f32 = 65536 B -> 512 tiles.
//   stream copy in    2660 latency + 65536 B / (32 GB/s / 1.33 GHz = 24.06 B/cycle) = 5384
//   sync (internal)   150
//   dim_shuffle       0 (a view)
//   matmul            200 + 2*128^3 FLOPs / (31.9 * 512) = 257 + 131072 operand bytes exchanged / (5.62 * 512) = 46 -> 503
//   add               200 + 3 * 65536 B / (24.3 * 512) = 16 -> 216
//   copy (same IPU)   150 + 65536 / (5.62 * 512) = 23 -> 173
//   step              5384 + 150 + 503 + 216 + 173 = 6426
//   main              4 x (6426 + 5384 for the output stream copy) = 47240
// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.program_stream_copy"{{.*}}poplar.cycles = 5384 : i64
// CHECK-NEXT: "poplar.program_sync"{{.*}}poplar.cycles = 150 : i64
// CHECK-NEXT: "poplar.dim_shuffle"{{.*}}poplar.cycles = 0 : i64
// CHECK-NEXT: "poplar.poplin_matmul"{{.*}}poplar.cycles = 503 : i64
// CHECK-NEXT: "poplar.popops_add"{{.*}}poplar.cycles = 216 : i64
// CHECK-NEXT: "poplar.program_copy"{{.*}}poplar.cycles = 173 : i64
// CHECK-NEXT: }) {name = "step", poplar.cycles = 6426 : i64}
// The f16 matmul of the same shape: 4x the AMP rate and half the bytes (256 tiles):
// 200 + 4194304 / (127.7 * 256) = 129 + 65536 / (5.62 * 256) = 46 -> 375.
// CHECK: "poplar.poplin_matmul"{{.*}}poplar.cycles = 375 : i64
// CHECK: "poplar.program_call"() {callee = "step", poplar.cycles = 6426 : i64}
// CHECK-NEXT: "poplar.program_stream_copy"{{.*}}poplar.cycles = 5384 : i64
// CHECK-NEXT: }) {count = 4 : i64, poplar.cycles = 47240 : i64}
// CHECK-NEXT: }) {name = "main", poplar.cycles = 47240 : i64}
// CHECK-NEXT: }) {num_ipus = 1 : i64, poplar.cycles_target = "ipu-model-mk2"
// Bow (1.85 GHz, 350 / 87.5 TFLOP/s, 65 TB/s): the same FLOPs per tile and cycle; the host
// link moves fewer bytes per (faster) cycle: 3700 + 65536 / 17.3 = 7489.
// BOW: "poplar.program_stream_copy"{{.*}}poplar.cycles = 7489 : i64
// BOW: "poplar.poplin_matmul"{{.*}}poplar.cycles = 501 : i64
// BOW: poplar.cycles_target = "ipu-model-bow"
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 512>} : () -> tensor<128x128xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 512, 512>} : () -> tensor<128x128xf32>
  %h = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "h", tiles = array<i64: 1024, 256>} : () -> tensor<128x128xf16>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<128x128xf32>} : () -> ()
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<128x128xf32>} : () -> ()
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64: 0, 512>} : () -> tensor<128x128xf32>
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<128x128xf32>) -> ()
    "poplar.program_sync"() {kind = "internal"} : () -> ()
    %t = "poplar.dim_shuffle"(%w) {permutation = array<i64: 1, 0>} : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %a = "poplar.poplin_matmul"(%x, %t) : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
    %b = "poplar.popops_add"(%a, %x) : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
    "poplar.program_copy"(%b, %out) : (tensor<128x128xf32>, tensor<128x128xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.function"() ({
    %c = "poplar.poplin_matmul"(%h, %h) : (tensor<128x128xf16>, tensor<128x128xf16>) -> tensor<128x128xf16>
  }) {name = "half"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%out) {stream = "host.output.0"} : (tensor<128x128xf32>) -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A pipelined step over 2 IPUs (pipeline-schedule's output), 4 micro-batches. Stage 0 on
// IPU 0: stream copy 2661 + relu 202 + send 1501 (1500 external sync + 16 B over the
// IPU-Links) = 4364; stage 1 on IPU 1: recv 0 + tanh 202 + copy 153 = 355. The 4 + 2 - 1 = 5
// time steps each take the busiest IPU's stages + an external sync (1500):
// 5864 (stage 0) + 3 x 5864 (both, on different IPUs) + 1855 (stage 1) = 25311,
// plus 4 output stream copies of 2661: 35955. The schedule and the step carry one
// micro-batch alone: 4364 + 355 = 4719.
// CHECK-LABEL: "poplar.graph"
// CHECK: "pipeline.send"{{.*}}poplar.cycles = 1501 : i64
// CHECK: }) {ipu_id = 0 : i64, poplar.cycles = 4364 : i64, stage_id = 0 : i64}
// CHECK: "pipeline.recv"{{.*}}poplar.cycles = 0 : i64
// CHECK: }) {ipu_id = 1 : i64, poplar.cycles = 355 : i64, stage_id = 1 : i64}
// CHECK-NEXT: }) {{{.*}}kind = "pipelined"{{.*}}poplar.cycles = 4719 : i64
// CHECK-NEXT: }) {name = "step", {{.*}}poplar.cycles = 4719 : i64}
// CHECK: }) {count = 4 : i64, poplar.cycles = 35955 : i64}
// CHECK-NEXT: }) {name = "main", poplar.cycles = 35955 : i64}
"poplar.graph"() ({
  %0 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4xf32>} : () -> ()
  %1 = "poplar.variable"() {ipu = 1 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
    "pipeline.schedule"() ({
      "pipeline.stage"() ({
        "poplar.program_stream_copy"(%0) {pipeline.stage = 0 : i64, stream = "host.input.x"} : (tensor<4xf32>) -> ()
        %4 = "poplar.popnn_nonlinearity"(%0) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
        "pipeline.send"(%4) {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, src_ipu = 0 : i64} : (tensor<4xf32>) -> ()
      }) {ipu_id = 0 : i64, stage_id = 0 : i64} : () -> ()
      "pipeline.stage"() ({
        %2 = "pipeline.recv"() {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, src_ipu = 0 : i64} : () -> tensor<4xf32>
        %3 = "poplar.popnn_nonlinearity"(%2) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
        "poplar.program_copy"(%3, %1) {pipeline.stage = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> ()
      }) {ipu_id = 1 : i64, stage_id = 1 : i64} : () -> ()
    }) {device_iterations = 4 : i64, gradient_accumulation = 1 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 2 : i64, training = false} : () -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 2 : i64, 2 : i64, array<i64: 0, 1>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%1) {stream = "host.output.0"} : (tensor<4xf32>) -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Collectives among 4 replicas of one IPU each, over each op's #poplar.comm_group of g
// replicas: rings over the IPU-Links (320 GB/s / 1.33 GHz = 240.6 B/cycle) after a
// cross-IPU sync (1500); 1024 f32 = 4096 B.
//   all_reduce, all 4       200 + 1500 + 2 x 3/4 x 4096 / 240.6 = 26 -> 1726
//   all_reduce, none (g=1)  the replica alone: one compute set, 200
//   reduce_scatter, 2       200 + 1500 + 1/2 x 4096 (the input) / 240.6 = 9 -> 1709
//   all_gather, 2           1500 + 1/2 x 4096 (the output) / 240.6 = 9 -> 1509
//   broadcast, all 4        1500 + 4096 / 240.6 = 18 -> 1518
// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.gcl_all_reduce"{{.*}}<"all", 0 : i64>{{.*}}poplar.cycles = 1726 : i64
// CHECK-NEXT: "poplar.gcl_all_reduce"{{.*}}<"none", 0 : i64>{{.*}}poplar.cycles = 200 : i64
// CHECK-NEXT: "poplar.gcl_reduce_scatter"{{.*}}poplar.cycles = 1709 : i64
// CHECK-NEXT: "poplar.gcl_all_gather"{{.*}}poplar.cycles = 1509 : i64
// CHECK-NEXT: "poplar.gcl_broadcast"{{.*}}poplar.cycles = 1518 : i64
// CHECK-NEXT: }) {name = "step", poplar.cycles = 6662 : i64}
"poplar.graph"() ({
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "g", tiles = array<i64: 0, 32>} : () -> tensor<1024xf32>
  %h = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "h", tiles = array<i64: 32, 16>} : () -> tensor<512xf32>
  "poplar.function"() ({
    %0 = "poplar.gcl_all_reduce"(%g) {op = "mean", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<1024xf32>) -> tensor<1024xf32>
    %1 = "poplar.gcl_all_reduce"(%g) {op = "add", group = #poplar.comm_group<"none", 0 : i64>} : (tensor<1024xf32>) -> tensor<1024xf32>
    %2 = "poplar.gcl_reduce_scatter"(%g) {op = "add", group = #poplar.comm_group<"consecutive", 2 : i64>} : (tensor<1024xf32>) -> tensor<512xf32>
    %3 = "poplar.gcl_all_gather"(%h) {group = #poplar.comm_group<"orthogonal", 2 : i64>} : (tensor<512xf32>) -> tensor<1024xf32>
    %4 = "poplar.gcl_broadcast"(%g) {root = 0 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<1024xf32>) -> tensor<1024xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 4 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Replicas of 32 IPUs: replicas 0 and 1 in one IPU-POD64, 2 and 3 in the next. A group
// spanning both Pods rings over the Gateway-Links (25 GB/s / 1.33 GHz = 18.8 B/cycle).
//   all_reduce, all 4               200 + 1500 + 6144 / 18.8 = 327 -> 2027
//   reduce_scatter, {0,1} {2,3}     within a Pod: 1709 as above
//   all_gather, {0,2} {1,3}         across Pods: 1500 + 2048 / 18.8 = 109 -> 1609
// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.gcl_all_reduce"{{.*}}poplar.cycles = 2027 : i64
// CHECK-NEXT: "poplar.gcl_reduce_scatter"{{.*}}poplar.cycles = 1709 : i64
// CHECK-NEXT: "poplar.gcl_all_gather"{{.*}}poplar.cycles = 1609 : i64
"poplar.graph"() ({
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "g", tiles = array<i64: 0, 32>} : () -> tensor<1024xf32>
  %h = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "h", tiles = array<i64: 32, 16>} : () -> tensor<512xf32>
  "poplar.function"() ({
    %0 = "poplar.gcl_all_reduce"(%g) {op = "mean", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<1024xf32>) -> tensor<1024xf32>
    %1 = "poplar.gcl_reduce_scatter"(%g) {op = "add", group = #poplar.comm_group<"consecutive", 2 : i64>} : (tensor<1024xf32>) -> tensor<512xf32>
    %2 = "poplar.gcl_all_gather"(%h) {group = #poplar.comm_group<"orthogonal", 2 : i64>} : (tensor<512xf32>) -> tensor<1024xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 32 : i64, replication_factor = 4 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
