// RUN: ipu-opt %s --split-input-file --verify-diagnostics

// One case per verifier rule of the ipu control-flow ops (dialects/ipu_control.py).

func.func @zero_count(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.for_loop' op attribute 'count' must be >= 1, got 0}}
  "ipu.for_loop"() ({
    %a = "ipu.carried"(%x) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "ipu.region_yield"(%a) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }) {name = "loop0", count = 0 : i64, num_values = 1 : i64} : () -> ()
  return
}

// -----

func.func @missing_yield(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.for_loop' op the loop body does not yield value(s) [1]}}
  "ipu.for_loop"() ({
    %a = "ipu.carried"(%x) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %b = "ipu.carried"(%x) {index = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "ipu.region_yield"(%a) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }) {name = "loop0", count = 2 : i64, num_values = 2 : i64} : () -> ()
  return
}

// -----

func.func @yield_twice(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.for_loop' op the loop body yields value 0 2 times}}
  "ipu.for_loop"() ({
    %a = "ipu.carried"(%x) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "ipu.region_yield"(%a) {index = 0 : i64} : (tensor<4xf32>) -> ()
    "ipu.region_yield"(%a) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }) {name = "loop0", count = 2 : i64, num_values = 1 : i64} : () -> ()
  return
}

// -----

func.func @carried_type_differs(%x: tensor<4xf32>, %y: tensor<2xf32>) {
  // expected-error@+1 {{'ipu.for_loop' op carried value 0 is tensor<4xf32> but the body yields tensor<2xf32>}}
  "ipu.for_loop"() ({
    %a = "ipu.carried"(%x) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "ipu.region_yield"(%y) {index = 0 : i64} : (tensor<2xf32>) -> ()
  }) {name = "loop0", count = 2 : i64, num_values = 1 : i64} : () -> ()
  return
}

// -----

func.func @carried_not_read(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.for_loop' op the loop body must read carried value 0 once with 'ipu.carried', got 0}}
  "ipu.for_loop"() ({
    "ipu.region_yield"(%x) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }) {name = "loop0", count = 2 : i64, num_values = 1 : i64} : () -> ()
  return
}

// -----

func.func @branch_types_differ(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<2xf32>) {
  // expected-error@+1 {{'ipu.if' op value 0: the then branch yields tensor<4xf32> but the else branch tensor<2xf32>; both branches must return the same types}}
  "ipu.if"(%c) ({
    "ipu.region_yield"(%x) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }, {
    "ipu.region_yield"(%y) {index = 0 : i64} : (tensor<2xf32>) -> ()
  }) {name = "cond0", num_values = 1 : i64} : (tensor<i1>) -> ()
  return
}

// -----

func.func @condition_not_bool(%c: tensor<2xi1>, %x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.if' op condition must be a one-element bool tensor, got tensor<2xi1>}}
  "ipu.if"(%c) ({
    "ipu.region_yield"(%x) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }, {
    "ipu.region_yield"(%x) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }) {name = "cond0", num_values = 1 : i64} : (tensor<2xi1>) -> ()
  return
}

// -----

func.func @carried_outside_a_loop(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.carried' op must be directly in an 'ipu.for_loop' body}}
  %a = "ipu.carried"(%x) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @yield_outside_a_region(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.region_yield' op must be directly in an 'ipu.for_loop' body or an 'ipu.if' branch}}
  "ipu.region_yield"(%x) {index = 0 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @result_of_unknown_region() {
  // expected-error@+1 {{'ipu.region_result' op refers to region op "loop9", which is not an 'ipu.for_loop' or 'ipu.if' before it in the same block}}
  %r = "ipu.region_result"() {region = "loop9", index = 0 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @result_type_differs(%x: tensor<4xf32>) {
  "ipu.for_loop"() ({
    %a = "ipu.carried"(%x) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "ipu.region_yield"(%a) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }) {name = "loop0", count = 2 : i64, num_values = 1 : i64} : () -> ()
  // expected-error@+1 {{'ipu.region_result' op result type tensor<2xf32> must equal the type "loop0" yields, tensor<4xf32>}}
  %r = "ipu.region_result"() {region = "loop0", index = 0 : i64} : () -> tensor<2xf32>
  return
}

// -----

func.func @result_index_out_of_range(%x: tensor<4xf32>) {
  "ipu.for_loop"() ({
    %a = "ipu.carried"(%x) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "ipu.region_yield"(%a) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }) {name = "loop0", count = 2 : i64, num_values = 1 : i64} : () -> ()
  // expected-error@+1 {{'ipu.region_result' op reads value 1 of "loop0", which has 1}}
  %r = "ipu.region_result"() {region = "loop0", index = 1 : i64} : () -> tensor<4xf32>
  return
}
