// RUN: not ipu-opt %s -p ipu-annotate-blocks 2>&1 >/dev/null | FileCheck %s

// Bad block metadata is an error located in the user's source, every offender reported.
// CHECK-DAG: model.py:1:5: error: block 'b': ipu_id must be >= 0, got -2
// CHECK-DAG: model.py:2:5: error: block metadata 'ipu_block' must be a non-empty string, got ""
// CHECK-DAG: model.py:3:5: error: block 'c': 'ipu_id' must be an integer, got "one"
func.func @bad_metadata(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b", ipu_id = -2 : i64}>["m"("model.py":1:5)])
  %1 = torch.aten.relu %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = ""}>["m"("model.py":2:5)])
  %2 = torch.aten.relu %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "c", ipu_id = "one"}>["m"("model.py":3:5)])
  return %2 : !torch.vtensor<[2],f32>
}
