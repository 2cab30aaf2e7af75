// RUN: ipu-opt %s -p convert-torch-to-poplar --split-input-file --verify-diagnostics | FileCheck %s

// The planning model ops lower to attributes (dialects/poplar/planning.py) and pass their
// value through: set_available_memory goes on the matmul computing its value (through a
// linear layer's bias add), a multi_conv member's plan on its convolution, set_overlap on
// the function's argument (input) or result (output) attributes, for poplar-build-program.
// CHECK: <{arg_attrs = [{ipu.role = #ipu.role<"input", "x">, poplar.overlap = "overlap_accumulation_loop"}, {ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"parameter", "l.weight">}, {ipu.role = #ipu.role<"parameter", "l.bias">}], function_type = {{.*}}, res_attrs = [{ipu.role = #ipu.role<"output", "0">}, {ipu.role = #ipu.role<"output", "1">, poplar.overlap = "overlap_device_iteration_loop"}], sym_name = "planning"}>
// CHECK: "poplar.poplin_conv"(%arg0, %arg1) {{.*}}poplar.available_memory = 3.000000e-01 : f64, poplar.multi_conv = {enable_conv_dithering = true, group = 4 : i64, index = 0 : i64, plan_type = "parallel"}, poplar.partials_type = "half"
// CHECK: "poplar.poplin_matmul"({{.*}}) {poplar.available_memory = 2.000000e-01 : f64}
// CHECK-NOT: ipu.
func.func @planning(%x: !torch.vtensor<[1,3,8,8],f32> {ipu.role = #ipu.role<"input", "x">}, %w: !torch.vtensor<[4,3,3,3],f32> {ipu.role = #ipu.role<"parameter", "w">},
                    %lw: !torch.vtensor<[5,4],f32> {ipu.role = #ipu.role<"parameter", "l.weight">}, %lb: !torch.vtensor<[5],f32> {ipu.role = #ipu.role<"parameter", "l.bias">})
    -> (!torch.vtensor<[1,4,8,8],f32> {ipu.role = #ipu.role<"output", "0">}, !torch.vtensor<[64,5],f32> {ipu.role = #ipu.role<"output", "1">}) {
  %0 = "ipu.set_overlap"(%x) {direction = "input", mode = "overlap_accumulation_loop"} : (!torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,8,8],f32>
  %none = torch.constant.none
  %false = torch.constant.bool false
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %ones = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.convolution %0, %w, %none, %ones, %ones, %ones, %false, %zeros, %int1 : !torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[4,3,3,3],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int -> !torch.vtensor<[1,4,8,8],f32>
  %2 = "ipu.multi_conv"(%1) {group = 4 : i64, index = 0 : i64, plan_type = "parallel", available_memory = 0.3 : f64, partials_type = "half", enable_conv_dithering = true} : (!torch.vtensor<[1,4,8,8],f32>) -> !torch.vtensor<[1,4,8,8],f32>
  %int64 = torch.constant.int 64
  %int4 = torch.constant.int 4
  %shape = torch.prim.ListConstruct %int64, %int4 : (!torch.int, !torch.int) -> !torch.list<int>
  %flat = torch.aten.view %2, %shape : !torch.vtensor<[1,4,8,8],f32>, !torch.list<int> -> !torch.vtensor<[64,4],f32>
  %3 = torch.aten.linear %flat, %lw, %lb : !torch.vtensor<[64,4],f32>, !torch.vtensor<[5,4],f32>, !torch.vtensor<[5],f32> -> !torch.vtensor<[64,5],f32>
  %4 = "ipu.set_available_memory"(%3) {proportion = 0.2 : f64} : (!torch.vtensor<[64,5],f32>) -> !torch.vtensor<[64,5],f32>
  %5 = "ipu.set_overlap"(%4) {direction = "output", mode = "overlap_device_iteration_loop"} : (!torch.vtensor<[64,5],f32>) -> !torch.vtensor<[64,5],f32>
  return %2, %5 : !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[64,5],f32>
}

// -----

// set_available_memory of a value no matmul or convolution computes is an identity, as
// PopTorch documents.
// CHECK-LABEL: sym_name = "not_planned"
// CHECK-NOT: poplar.available_memory
func.func @not_planned(%x: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %0 = torch.aten.relu %x : !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  %1 = "ipu.set_available_memory"(%0) {proportion = 0.2 : f64} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  return %1 : !torch.vtensor<[4],f32>
}

// -----

// An embedding lookup (a multi-slice of the table) takes set_available_memory too.
// CHECK-LABEL: sym_name = "embedding"
// CHECK: "poplar.popops_multi_slice"({{.*}}) {dim = 0 : i64, poplar.available_memory = 4.000000e-01 : f64}
func.func @embedding(%table: !torch.vtensor<[5,3],f32>, %ids: !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,3],f32> {
  %int-1 = torch.constant.int -1
  %false = torch.constant.bool false
  %0 = torch.aten.embedding %table, %ids, %int-1, %false, %false : !torch.vtensor<[5,3],f32>, !torch.vtensor<[2],si64>, !torch.int, !torch.bool, !torch.bool -> !torch.vtensor<[2,3],f32>
  %1 = "ipu.set_available_memory"(%0) {proportion = 0.4 : f64} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  return %1 : !torch.vtensor<[2,3],f32>
}

// -----

func.func @member_without_a_convolution(%x: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %0 = torch.aten.relu %x : !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  // expected-error @+1 {{'ipu.multi_conv' cannot be lowered to the poplar dialect: poptorch.MultiConv member 0 is not the result of a convolution (it comes from poplar.popnn_nonlinearity); only convolutions (torch.nn.Conv1d/2d/3d, F.conv*d, conv_transpose*d) join a MultiConv}}
  %1 = "ipu.multi_conv"(%0) {group = 0 : i64, index = 0 : i64, plan_type = "serial"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  return %1 : !torch.vtensor<[4],f32>
}

// -----

func.func @overlap_of_a_computed_input(%x: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %0 = torch.aten.relu %x : !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  // expected-error @+1 {{'ipu.set_overlap' cannot be lowered to the poplar dialect: poptorch.set_overlap_for_input takes the model's inputs as they come in: call it at the start of forward on each input, before any op uses it}}
  %1 = "ipu.set_overlap"(%0) {direction = "input", mode = "no_overlap"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  return %1 : !torch.vtensor<[4],f32>
}

// -----

func.func @overlap_of_an_output_used_again(%x: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  // expected-error @+1 {{'ipu.set_overlap' cannot be lowered to the poplar dialect: poptorch.set_overlap_for_output takes the model's outputs as they go out: call it at the end of forward on each output and return its result, unused by any other op}}
  %0 = "ipu.set_overlap"(%x) {direction = "output", mode = "no_overlap"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %1 = torch.aten.relu %0 : !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  return %0, %1 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}
