// RUN: ipu-opt %s --split-input-file --verify-diagnostics

// Verifier messages of the scan ops and the random draws (valid forms: scan-random.mlir).

// ===== poplar.popops_cumulative_sum / popops_cumulative_product
func.func @scan_dim_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_cumulative_sum' op attribute 'dim' must be in [0, 2), got 2}}
  %0 = "poplar.popops_cumulative_sum"(%a) {dim = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scan_negative_dim(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_cumulative_product' op attribute 'dim' must be >= 0, got -1}}
  %0 = "poplar.popops_cumulative_product"(%a) {dim = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scan_changes_shape(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_cumulative_sum' op result shape [3, 2] must equal the input shape [2, 3]}}
  %0 = "poplar.popops_cumulative_sum"(%a) {dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @scan_of_booleans_into_booleans(%a: tensor<4xi1>) {
  // expected-error@+1 {{'poplar.popops_cumulative_sum' op result must have numeric elements, got i1 (a scan of booleans counts in an integer type)}}
  %0 = "poplar.popops_cumulative_sum"(%a) {dim = 0 : i64} : (tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @scan_without_dim(%a: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popops_cumulative_sum' op requires attribute 'dim'}}
  %0 = "poplar.popops_cumulative_sum"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// ===== poplar.popops_cumulative_log_sum_exp / _max / _min
func.func @log_sum_exp_of_integers(%a: tensor<4xi64>) {
  // expected-error@+1 {{'poplar.popops_cumulative_log_sum_exp' op input must have floating-point elements, got i64}}
  %0 = "poplar.popops_cumulative_log_sum_exp"(%a) {dim = 0 : i64} : (tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @log_sum_exp_into_another_type(%a: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popops_cumulative_log_sum_exp' op result type tensor<4xf64> must equal the input type tensor<4xf32>}}
  %0 = "poplar.popops_cumulative_log_sum_exp"(%a) {dim = 0 : i64} : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @cumulative_max_float_indices(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_cumulative_max' op indices must have integer elements, got f32}}
  %0:2 = "poplar.popops_cumulative_max"(%a) {dim = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return
}

// -----

func.func @cumulative_min_values_of_another_type(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_cumulative_min' op values type tensor<2x3xf16> must equal the input type tensor<2x3xf32>}}
  %0:2 = "poplar.popops_cumulative_min"(%a) {dim = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x3xf16>, tensor<2x3xi64>)
  return
}

// -----

func.func @cumulative_max_dim_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_cumulative_max' op attribute 'dim' must be in [0, 2), got 2}}
  %0:2 = "poplar.popops_cumulative_max"(%a) {dim = 2 : i64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return
}

// -----

// ===== poplar.poprand_uniform
func.func @uniform_reversed_bounds() {
  // expected-error@+1 {{'poplar.poprand_uniform' op attribute 'min_val' (2.0) must be <= 'max_val' (1.0)}}
  %0 = "poplar.poprand_uniform"() {min_val = 2.0 : f64, max_val = 1.0 : f64} : () -> tensor<4xf32>
  return
}

// -----

func.func @uniform_integers_empty_range() {
  // expected-error@+1 {{'poplar.poprand_uniform' op attribute 'min_val' (3.0) must be < 'max_val' (3.0) for an integer draw}}
  %0 = "poplar.poprand_uniform"() {min_val = 3.0 : f64, max_val = 3.0 : f64} : () -> tensor<4xi64>
  return
}

// -----

func.func @uniform_integers_fractional_bound() {
  // expected-error@+1 {{'poplar.poprand_uniform' op an integer draw needs integral bounds, got [0.5, 3.0)}}
  %0 = "poplar.poprand_uniform"() {min_val = 0.5 : f64, max_val = 3.0 : f64} : () -> tensor<4xi32>
  return
}

// -----

func.func @uniform_booleans() {
  // expected-error@+1 {{'poplar.poprand_uniform' op result must have numeric elements, got i1 (draw numbers, then compare them)}}
  %0 = "poplar.poprand_uniform"() {min_val = 0.0 : f64, max_val = 1.0 : f64} : () -> tensor<4xi1>
  return
}

// -----

// ===== poplar.poprand_normal
func.func @normal_negative_std() {
  // expected-error@+1 {{'poplar.poprand_normal' op attribute 'std_dev' must be >= 0.0, got -1.0}}
  %0 = "poplar.poprand_normal"() {mean = 0.0 : f64, std_dev = -1.0 : f64} : () -> tensor<4xf32>
  return
}

// -----

func.func @normal_integers() {
  // expected-error@+1 {{'poplar.poprand_normal' op result must have float elements, got i32}}
  %0 = "poplar.poprand_normal"() {mean = 0.0 : f64, std_dev = 1.0 : f64} : () -> tensor<4xi32>
  return
}
