// RUN: ipu-opt %s -p ipu-annotate-blocks --verify-diagnostics

// Bad block metadata is an error at the op that carries it, every offender reported in
// one run. The metadata lives in the op's location, which points into the user's source
// (model.py), not into this file: the errors are expected @unknown here, and
// test_ipu_opt.py::test_failed_pipeline_writes_a_reproducer checks the
// "model.py:1:5: error: ..." line a user sees for the first of them.
func.func @bad_metadata(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  // expected-error @unknown {{block 'b': ipu_id must be >= 0, got -2}}
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b", ipu_id = -2 : i64}>["m"("model.py":1:5)])
  // expected-error @unknown {{block metadata 'ipu_block' must be a non-empty string, got ""}}
  %1 = torch.aten.relu %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = ""}>["m"("model.py":2:5)])
  // expected-error @unknown {{block 'c': 'ipu_id' must be an integer, got "one"}}
  %2 = torch.aten.relu %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "c", ipu_id = "one"}>["m"("model.py":3:5)])
  return %2 : !torch.vtensor<[2],f32>
}
