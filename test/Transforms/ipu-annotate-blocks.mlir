// RUN: ipu-opt %s -p ipu-annotate-blocks --split-input-file | FileCheck %s
// RUN: ipu-opt %s -p 'ipu-annotate-blocks{inherit-from-producers=false}' --split-input-file | FileCheck %s --check-prefix=NOINHERIT

// A forward op in a block gets the block; a forward op outside any block is left alone.
// CHECK-LABEL: sym_name = "forward"
// CHECK: "torch.aten.relu"(%arg0) {ipu.block = #ipu.block<"enc", 1 : i64>}
// CHECK-NOT: ipu.block
// CHECK: "func.return"
func.func @forward(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "enc", ipu_id = 1 : i64, seq_nr = 0 : i64}>["enc"("model.py":10:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{seq_nr = 1 : i64}>["head"("model.py":11:1)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// A block without an ipu_id gets -1: the execution strategy assigns its IPU.
// CHECK-LABEL: sym_name = "no_ipu"
// CHECK: "torch.aten.relu"(%arg0) {ipu.block = #ipu.block<"A", -1 : i64>}
func.func @no_ipu(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A"}>["a"("model.py":3:1)])
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// Backward ops: same seq_nr as a forward op -> its block (rule 2), even when the
// producer is in another block; otherwise the producer's block (rule 3).
// CHECK-LABEL: sym_name = "backward"
// CHECK: %[[F0:.*]] = "torch.aten.relu"(%arg0) {ipu.block = #ipu.block<"s0", 0 : i64>}
// CHECK: %[[F1:.*]] = "torch.aten.tanh"(%[[F0]]) {ipu.block = #ipu.block<"s1", 1 : i64>}
// CHECK: %[[B1:.*]] = "torch.aten.neg"(%[[F1]]) {ipu.block = #ipu.block<"s0", 0 : i64>}
// CHECK: "torch.aten.exp"(%[[B1]]) {ipu.block = #ipu.block<"s0", 0 : i64>}
// NOINHERIT-LABEL: sym_name = "backward"
// NOINHERIT: "torch.aten.neg"({{.*}}) {ipu.block = #ipu.block<"s0", 0 : i64>}
// NOINHERIT: "torch.aten.exp"(%{{[0-9]+}}) :
func.func @backward(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "s0", ipu_id = 0 : i64, seq_nr = 5 : i64}>["l0"("model.py":20:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "s1", ipu_id = 1 : i64, seq_nr = 6 : i64}>["l1"("model.py":21:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 5 : i64}>["l0"("model.py":20:1)])
  %3 = torch.aten.exp %2 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true}>["l0"("model.py":20:1)])
  return %3 : !torch.vtensor<[2],f32>
}

// -----

// The backward of a forward op before the first block stays outside any block (also
// without producer inheritance), although autograd traced it with the last block active
// ("head" in its location) and its gradient operand comes from "head".
// CHECK-LABEL: sym_name = "backward_before_first_block"
// CHECK: %[[F0:.*]] = "torch.aten.relu"(%arg0) :
// CHECK: %[[F1:.*]] = "torch.aten.tanh"(%[[F0]]) {ipu.block = #ipu.block<"head", 1 : i64>}
// CHECK: %[[B1:.*]] = "torch.aten.neg"(%[[F1]]) {ipu.block = #ipu.block<"head", 1 : i64>}
// CHECK: "torch.aten.mul.Tensor"(%[[B1]], %[[F0]]) :
// NOINHERIT-LABEL: sym_name = "backward_before_first_block"
// NOINHERIT: "torch.aten.neg"({{.*}}) {ipu.block = #ipu.block<"head", 1 : i64>}
// NOINHERIT: "torch.aten.mul.Tensor"(%{{[0-9]+}}, %{{[0-9]+}}) :
func.func @backward_before_first_block(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{seq_nr = 1 : i64}>["embed"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "head", ipu_id = 1 : i64, seq_nr = 2 : i64}>["head"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, ipu_block = "head", ipu_id = 1 : i64, seq_nr = 2 : i64}>["head"("model.py":2:1)])
  %3 = torch.aten.mul.Tensor %2, %0 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, ipu_block = "head", ipu_id = 1 : i64, seq_nr = 1 : i64}>["embed"("model.py":1:1)])
  return %3 : !torch.vtensor<[2],f32>
}

// -----

// A backward op without a seq_nr match takes its producers' block only when they agree:
// %4 sums gradients from blocks "a" and "b" (a value used in both) and gets no block
// (ipu-assign-stages places it after its last operand); %5 reads only "b" values.
// CHECK-LABEL: sym_name = "gradient_sum_over_blocks"
// CHECK: %[[GA:.*]] = "torch.aten.neg"{{.*}}ipu.block = #ipu.block<"a", 0 : i64>
// CHECK: %[[GB:.*]] = "torch.aten.neg"{{.*}}ipu.block = #ipu.block<"b", 1 : i64>
// CHECK: %[[S:.*]] = "torch.aten.add.Tensor"(%[[GA]], %[[GB]], %{{.*}}) :
// CHECK: "torch.aten.exp"(%[[GB]]) {ipu.block = #ipu.block<"b", 1 : i64>}
func.func @gradient_sum_over_blocks(%x: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) {
  %int1 = torch.constant.int 1
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "a", ipu_id = 0 : i64, seq_nr = 1 : i64}>["a"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b", ipu_id = 1 : i64, seq_nr = 2 : i64}>["b"("model.py":2:1)])
  %2 = torch.aten.neg %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 1 : i64}>["a"("model.py":1:1)])
  %3 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 2 : i64}>["b"("model.py":2:1)])
  %4 = torch.aten.add.Tensor %2, %3, %int1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 9 : i64}>["b"("model.py":2:1)])
  %5 = torch.aten.exp %3 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 9 : i64}>["b"("model.py":2:1)])
  return %4, %5 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
}
