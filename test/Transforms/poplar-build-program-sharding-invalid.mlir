// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=4 replication-factor=2}' --verify-diagnostics

// Anchored state (Options.anchorTensor, streamed after each step) that is sharded across the
// replicas (poplar.replica_shard): each replica holds only its part, so no stream carries the
// tensor; the error names it and the fix.
// expected-error @+1 {{poplar-build-program: the anchored tensor 'w' is sharded across the replicas (TensorLocationSettings.useReplicatedTensorSharding): each replica holds only its part, so it cannot be streamed after each step. Anchor it with OutputMode.Final (read after the call, which joins the parts), or keep its class unsharded}}
module attributes {ipu.anchored_state = [#ipu.state_anchor<"w", "all", 1 : i64>]} {
  func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">, poplar.replica_shard = #poplar.replica_shard<array<i64: 5>, 2 : i64>}, %x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "output.0">}) {
    return %x : tensor<3xf32>
  }
}
