// IRDL definition of the 'poplar' dialect, generated from dialects/poplar/.
// Do not edit: regenerate with `python -m ipu_mlir.dialects`.
// Use: torch-mlir-opt --irdl-file=dialects/poplar.irdl.mlir <file>
module {
  irdl.dialect @poplar {
    irdl.attribute @interface {
      %0 = irdl.base "#builtin.dictionary" 
      %1 = irdl.base "#builtin.array" 
      %2 = irdl.base "#builtin.array" 
      %3 = irdl.base "#builtin.string" 
      %4 = irdl.base "#builtin.string" 
      %5 = irdl.base "#builtin.string" 
      irdl.parameters(inputs: %0, outputs: %1, variables: %2, step: %3, update: %4, main: %5)
    }
    irdl.attribute @anchor {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.string" 
      %3 = irdl.base "#builtin.integer" 
      irdl.parameters(name: %0, stream: %1, mode: %2, period: %3)
    }
    irdl.attribute @ipu_memory {
      %0 = irdl.base "#builtin.integer" 
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.integer" 
      irdl.parameters(ipu: %0, variables: %1, temporaries: %2, stash: %3, total: %4)
    }
    irdl.attribute @memory_plan {
      %0 = irdl.base "#builtin.array" 
      irdl.parameters(ipus: %0)
    }
    irdl.attribute @comm_group {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.integer" 
      irdl.parameters(kind: %0, size: %1)
    }
    irdl.attribute @tensor_location {
      %0 = irdl.base "#builtin.integer" 
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.integer" 
      %5 = irdl.base "#builtin.integer" 
      irdl.parameters(on_chip: %0, min_elements_for_off_chip: %1, sharded: %2, min_elements_for_sharding: %3, io_tiles_to_load: %4, io_tiles_to_store: %5)
    }
    irdl.attribute @tensor_locations {
      %0 = irdl.base @poplar::@tensor_location 
      %1 = irdl.base @poplar::@tensor_location 
      %2 = irdl.base @poplar::@tensor_location 
      %3 = irdl.base @poplar::@tensor_location 
      irdl.parameters(weight: %0, optimizer: %1, accumulator: %2, activation: %3)
    }
    irdl.attribute @ipu_streaming {
      %0 = irdl.base "#builtin.integer" 
      %1 = irdl.base "#builtin.integer" 
      irdl.parameters(ipu: %0, bytes: %1)
    }
    irdl.attribute @streaming_memory {
      %0 = irdl.base "#builtin.array" 
      irdl.parameters(ipus: %0)
    }
    irdl.attribute @io_tile_memory {
      %0 = irdl.base "#builtin.integer" 
      %1 = irdl.base "#builtin.integer" 
      irdl.parameters(tiles: %0, bytes: %1)
    }
    irdl.attribute @replica_shard {
      %0 = irdl.base "#builtin.dense_array" 
      %1 = irdl.base "#builtin.integer" 
      irdl.parameters(shape: %0, replicas: %1)
    }
    irdl.operation @program_if {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(condition: %0)
      %1 = irdl.region
      %2 = irdl.region
      irdl.regions(then_body: %1, else_body: %2)
    }
    irdl.operation @custom_op {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      %4 = irdl.base "!builtin.tensor" 
      %5 = irdl.base "!builtin.tensor" 
      %6 = irdl.base "!builtin.tensor" 
      %7 = irdl.base "!builtin.tensor" 
      irdl.operands(input0: variadic %0, input1: variadic %1, input2: variadic %2, input3: variadic %3, input4: variadic %4, input5: variadic %5, input6: variadic %6, input7: variadic %7)
      %8 = irdl.base "#builtin.string" 
      %9 = irdl.base "#builtin.string" 
      %10 = irdl.base "#builtin.integer" 
      %11 = irdl.base "#builtin.dictionary" 
      irdl.attributes {"op_name" = %8, "domain" = %9, "domain_version" = %10, "op_attributes" = %11}
      %12 = irdl.base "!builtin.tensor" 
      %13 = irdl.base "!builtin.tensor" 
      %14 = irdl.base "!builtin.tensor" 
      %15 = irdl.base "!builtin.tensor" 
      %16 = irdl.base "!builtin.tensor" 
      %17 = irdl.base "!builtin.tensor" 
      %18 = irdl.base "!builtin.tensor" 
      %19 = irdl.base "!builtin.tensor" 
      irdl.results(output0: variadic %12, output1: variadic %13, output2: variadic %14, output3: variadic %15, output4: variadic %16, output5: variadic %17, output6: variadic %18, output7: variadic %19)
    }
    irdl.operation @custom_op_grad {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      %4 = irdl.base "!builtin.tensor" 
      %5 = irdl.base "!builtin.tensor" 
      %6 = irdl.base "!builtin.tensor" 
      %7 = irdl.base "!builtin.tensor" 
      %8 = irdl.base "!builtin.tensor" 
      %9 = irdl.base "!builtin.tensor" 
      %10 = irdl.base "!builtin.tensor" 
      %11 = irdl.base "!builtin.tensor" 
      %12 = irdl.base "!builtin.tensor" 
      %13 = irdl.base "!builtin.tensor" 
      %14 = irdl.base "!builtin.tensor" 
      %15 = irdl.base "!builtin.tensor" 
      %16 = irdl.base "!builtin.tensor" 
      %17 = irdl.base "!builtin.tensor" 
      %18 = irdl.base "!builtin.tensor" 
      %19 = irdl.base "!builtin.tensor" 
      %20 = irdl.base "!builtin.tensor" 
      %21 = irdl.base "!builtin.tensor" 
      %22 = irdl.base "!builtin.tensor" 
      %23 = irdl.base "!builtin.tensor" 
      irdl.operands(input0: variadic %0, input1: variadic %1, input2: variadic %2, input3: variadic %3, input4: variadic %4, input5: variadic %5, input6: variadic %6, input7: variadic %7, output0: variadic %8, output1: variadic %9, output2: variadic %10, output3: variadic %11, output4: variadic %12, output5: variadic %13, output6: variadic %14, output7: variadic %15, grad_output0: variadic %16, grad_output1: variadic %17, grad_output2: variadic %18, grad_output3: variadic %19, grad_output4: variadic %20, grad_output5: variadic %21, grad_output6: variadic %22, grad_output7: variadic %23)
      %24 = irdl.base "#builtin.string" 
      %25 = irdl.base "#builtin.string" 
      %26 = irdl.base "#builtin.integer" 
      %27 = irdl.base "#builtin.dictionary" 
      %28 = irdl.base "#builtin.dense_array" 
      irdl.attributes {"op_name" = %24, "domain" = %25, "domain_version" = %26, "op_attributes" = %27, "differentiable" = %28}
      %29 = irdl.base "!builtin.tensor" 
      %30 = irdl.base "!builtin.tensor" 
      %31 = irdl.base "!builtin.tensor" 
      %32 = irdl.base "!builtin.tensor" 
      %33 = irdl.base "!builtin.tensor" 
      %34 = irdl.base "!builtin.tensor" 
      %35 = irdl.base "!builtin.tensor" 
      %36 = irdl.base "!builtin.tensor" 
      irdl.results(grad_input0: variadic %29, grad_input1: variadic %30, grad_input2: variadic %31, grad_input3: variadic %32, grad_input4: variadic %33, grad_input5: variadic %34, grad_input6: variadic %35, grad_input7: variadic %36)
    }
    irdl.operation @program_host_call {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      %4 = irdl.base "!builtin.tensor" 
      %5 = irdl.base "!builtin.tensor" 
      %6 = irdl.base "!builtin.tensor" 
      %7 = irdl.base "!builtin.tensor" 
      irdl.operands(input0: variadic %0, input1: variadic %1, input2: variadic %2, input3: variadic %3, input4: variadic %4, input5: variadic %5, input6: variadic %6, input7: variadic %7)
      %8 = irdl.base "#builtin.string" 
      irdl.attributes {"handle" = %8}
      %9 = irdl.base "!builtin.tensor" 
      %10 = irdl.base "!builtin.tensor" 
      %11 = irdl.base "!builtin.tensor" 
      %12 = irdl.base "!builtin.tensor" 
      %13 = irdl.base "!builtin.tensor" 
      %14 = irdl.base "!builtin.tensor" 
      %15 = irdl.base "!builtin.tensor" 
      %16 = irdl.base "!builtin.tensor" 
      irdl.results(output0: variadic %9, output1: variadic %10, output2: variadic %11, output3: variadic %12, output4: variadic %13, output5: variadic %14, output6: variadic %15, output7: variadic %16)
    }
    irdl.operation @popnn_ctc_beam_search_decoder {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(log_probs: %0, lengths: %1)
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.integer" 
      irdl.attributes {"blank" = %2, "beam_width" = %3, "top_paths" = %4}
      %5 = irdl.base "!builtin.tensor" 
      %6 = irdl.base "!builtin.tensor" 
      %7 = irdl.base "!builtin.tensor" 
      irdl.results(probabilities: %5, path_lengths: %6, paths: %7)
    }
    irdl.operation @gcl_all_reduce {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base @poplar::@comm_group 
      irdl.attributes {"op" = %1, "group" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @gcl_reduce_scatter {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base @poplar::@comm_group 
      irdl.attributes {"op" = %1, "group" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @gcl_all_gather {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base @poplar::@comm_group 
      irdl.attributes {"group" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @gcl_broadcast {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base @poplar::@comm_group 
      irdl.attributes {"root" = %1, "group" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @graph {
      %0 = irdl.base "#builtin.integer" 
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"num_ipus" = %0, "replication_factor" = %1, "tiles_per_ipu" = %2}
      %3 = irdl.region
      irdl.regions(body: %3)
    }
    irdl.operation @variable {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.dense_array" 
      irdl.attributes {"name" = %0, "kind" = %1, "ipu" = %2, "tiles" = %3}
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(result: %4)
    }
    irdl.operation @constant {
      %0 = irdl.any
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"value" = %0, "ipu" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @remote_buffer {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.type" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"name" = %0, "type" = %1, "repeats" = %2}
    }
    irdl.operation @host_stream {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.type" 
      irdl.attributes {"name" = %0, "direction" = %1, "type" = %2}
    }
    irdl.operation @function {
      %0 = irdl.base "#builtin.string" 
      irdl.attributes {"name" = %0}
      %1 = irdl.region
      irdl.regions(body: %1)
    }
    irdl.operation @program_sequence {
      %0 = irdl.base "#builtin.string" 
      irdl.attributes {"name" = %0}
      %1 = irdl.region
      irdl.regions(body: %1)
    }
    irdl.operation @program_repeat {
      %0 = irdl.base "#builtin.integer" 
      irdl.attributes {"count" = %0}
      %1 = irdl.region
      irdl.regions(body: %1)
    }
    irdl.operation @program_copy {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(source: %0, destination: %1)
    }
    irdl.operation @program_stream_copy {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(tensor: %0)
      %1 = irdl.base "#builtin.string" 
      irdl.attributes {"stream" = %1}
    }
    irdl.operation @program_sync {
      %0 = irdl.base "#builtin.string" 
      irdl.attributes {"kind" = %0}
    }
    irdl.operation @program_print_tensor {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(tensor: %0)
      %1 = irdl.base "#builtin.string" 
      irdl.attributes {"title" = %1}
    }
    irdl.operation @program_call {
      %0 = irdl.base "#builtin.string" 
      irdl.attributes {"callee" = %0}
    }
    irdl.operation @poplin_matmul {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @poplin_linear {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, weights: %1, bias: %2)
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @poplin_conv {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, weights: %1, bias: variadic %2)
      %3 = irdl.base "#builtin.dense_array" 
      %4 = irdl.base "#builtin.dense_array" 
      %5 = irdl.base "#builtin.dense_array" 
      %6 = irdl.base "#builtin.integer" 
      irdl.attributes {"stride" = %3, "padding" = %4, "dilation" = %5, "groups" = %6}
      %7 = irdl.base "!builtin.tensor" 
      irdl.results(result: %7)
    }
    irdl.operation @poplin_conv_grad {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(grad: %0, input: %1, weights: %2)
      %3 = irdl.base "#builtin.dense_array" 
      %4 = irdl.base "#builtin.dense_array" 
      %5 = irdl.base "#builtin.dense_array" 
      %6 = irdl.base "#builtin.integer" 
      irdl.attributes {"stride" = %3, "padding" = %4, "dilation" = %5, "groups" = %6}
      %7 = irdl.base "!builtin.tensor" 
      %8 = irdl.base "!builtin.tensor" 
      %9 = irdl.base "!builtin.tensor" 
      irdl.results(grad_input: variadic %7, grad_weights: variadic %8, grad_bias: variadic %9)
    }
    irdl.operation @poplin_conv_transpose {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, weights: %1, bias: variadic %2)
      %3 = irdl.base "#builtin.dense_array" 
      %4 = irdl.base "#builtin.dense_array" 
      %5 = irdl.base "#builtin.dense_array" 
      %6 = irdl.base "#builtin.dense_array" 
      %7 = irdl.base "#builtin.integer" 
      irdl.attributes {"stride" = %3, "padding" = %4, "output_padding" = %5, "dilation" = %6, "groups" = %7}
      %8 = irdl.base "!builtin.tensor" 
      irdl.results(result: %8)
    }
    irdl.operation @poplin_conv_transpose_grad {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(grad: %0, input: %1, weights: %2)
      %3 = irdl.base "#builtin.dense_array" 
      %4 = irdl.base "#builtin.dense_array" 
      %5 = irdl.base "#builtin.dense_array" 
      %6 = irdl.base "#builtin.dense_array" 
      %7 = irdl.base "#builtin.integer" 
      irdl.attributes {"stride" = %3, "padding" = %4, "output_padding" = %5, "dilation" = %6, "groups" = %7}
      %8 = irdl.base "!builtin.tensor" 
      %9 = irdl.base "!builtin.tensor" 
      %10 = irdl.base "!builtin.tensor" 
      irdl.results(grad_input: variadic %8, grad_weights: variadic %9, grad_bias: variadic %10)
    }
    irdl.operation @poplin_cholesky {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"upper" = %1}
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(factor: %2, info: %3)
    }
    irdl.operation @poplin_lu_factor {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"pivot" = %1}
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(lu: %2, pivots: %3, info: %4)
    }
    irdl.operation @poplin_lu_unpack {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lu: %0, pivots: %1)
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.integer" 
      irdl.attributes {"unpack_data" = %2, "unpack_pivots" = %3}
      %4 = irdl.base "!builtin.tensor" 
      %5 = irdl.base "!builtin.tensor" 
      %6 = irdl.base "!builtin.tensor" 
      irdl.results(p: %4, l: %5, u: %6)
    }
    irdl.operation @poplin_qr {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.string" 
      irdl.attributes {"mode" = %1}
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(q: %2, r: %3)
    }
    irdl.operation @poplin_geqrf {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(a: %1, tau: %2)
    }
    irdl.operation @poplin_householder_product {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, tau: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @poplin_ldl_factor {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"hermitian" = %1}
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(ld: %2, pivots: %3, info: %4)
    }
    irdl.operation @poplin_svd {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"full_matrices" = %1, "compute_uv" = %2}
      %3 = irdl.base "!builtin.tensor" 
      %4 = irdl.base "!builtin.tensor" 
      %5 = irdl.base "!builtin.tensor" 
      irdl.results(u: %3, s: %4, vh: %5)
    }
    irdl.operation @poplin_eigh {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"uplo" = %1, "compute_v" = %2}
      %3 = irdl.base "!builtin.tensor" 
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(eigenvalues: %3, eigenvectors: %4)
    }
    irdl.operation @poplin_eig {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(eigenvalues: %1, eigenvectors: %2)
    }
    irdl.operation @poplin_triangular_solve {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(a: %0, b: %1)
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.integer" 
      irdl.attributes {"upper" = %2, "left" = %3, "unitriangular" = %4}
      %5 = irdl.base "!builtin.tensor" 
      irdl.results(result: %5)
    }
    irdl.operation @poplin_lu_solve {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(lu: %0, pivots: %1, b: %2)
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.integer" 
      irdl.attributes {"left" = %3, "adjoint" = %4}
      %5 = irdl.base "!builtin.tensor" 
      irdl.results(result: %5)
    }
    irdl.operation @poplin_solve {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(a: %0, b: %1)
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"left" = %2}
      %3 = irdl.base "!builtin.tensor" 
      %4 = irdl.base "!builtin.tensor" 
      %5 = irdl.base "!builtin.tensor" 
      %6 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3, lu: %4, pivots: %5, info: %6)
    }
    irdl.operation @poplin_inverse {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(inverse: %1, info: %2)
    }
    irdl.operation @poplin_determinant {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(det: %1, lu: %2, pivots: %3)
    }
    irdl.operation @poplin_sign_log_determinant {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(sign: %1, logabsdet: %2, lu: %3, pivots: %4)
    }
    irdl.operation @poplin_cholesky_solve {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(b: %0, factor: %1)
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"upper" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @poplin_cholesky_inverse {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(factor: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"upper" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @poplin_ormqr {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(reflectors: %0, tau: %1, c: %2)
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.integer" 
      irdl.attributes {"left" = %3, "transpose" = %4}
      %5 = irdl.base "!builtin.tensor" 
      irdl.results(result: %5)
    }
    irdl.operation @poplin_ldl_solve {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(ld: %0, pivots: %1, b: %2)
      %3 = irdl.base "#builtin.integer" 
      irdl.attributes {"hermitian" = %3}
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(result: %4)
    }
    irdl.operation @poplin_pseudo_inverse {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, atol: %1, rtol: %2)
      %3 = irdl.base "#builtin.integer" 
      irdl.attributes {"hermitian" = %3}
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(result: %4)
    }
    irdl.operation @poplin_matrix_exp {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @poplin_dft_r2c {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.dense_array" 
      %2 = irdl.base "#builtin.string" 
      %3 = irdl.base "#builtin.integer" 
      irdl.attributes {"dims" = %1, "normalization" = %2, "onesided" = %3}
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(result: %4)
    }
    irdl.operation @poplin_dft_c2r {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.dense_array" 
      %2 = irdl.base "#builtin.string" 
      %3 = irdl.base "#builtin.integer" 
      irdl.attributes {"dims" = %1, "normalization" = %2, "last_dim_size" = %3}
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(result: %4)
    }
    irdl.operation @poplin_dft_c2c {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.dense_array" 
      %2 = irdl.base "#builtin.string" 
      %3 = irdl.base "#builtin.integer" 
      irdl.attributes {"dims" = %1, "normalization" = %2, "forward" = %3}
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(result: %4)
    }
    irdl.operation @view_as_real {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @view_as_complex {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @poplin_matmul_acc {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(acc: %0, lhs: %1, rhs: %2)
      %3 = irdl.base "#builtin.float" 
      %4 = irdl.base "#builtin.float" 
      irdl.attributes {"alpha" = %3, "beta" = %4}
      %5 = irdl.base "!builtin.tensor" 
      irdl.results(result: %5)
    }
    irdl.operation @popnn_pool {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.dense_array" 
      %2 = irdl.base "#builtin.dense_array" 
      %3 = irdl.base "#builtin.dense_array" 
      %4 = irdl.base "#builtin.integer" 
      %5 = irdl.base "#builtin.string" 
      %6 = irdl.base "#builtin.integer" 
      irdl.attributes {"kernel" = %1, "stride" = %2, "padding" = %3, "ceil_mode" = %4, "kind" = %5, "count_include_pad" = %6}
      %7 = irdl.base "!builtin.tensor" 
      irdl.results(result: %7)
    }
    irdl.operation @popnn_pool_grad {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, grad: %1)
      %2 = irdl.base "#builtin.dense_array" 
      %3 = irdl.base "#builtin.dense_array" 
      %4 = irdl.base "#builtin.dense_array" 
      %5 = irdl.base "#builtin.integer" 
      %6 = irdl.base "#builtin.string" 
      %7 = irdl.base "#builtin.integer" 
      irdl.attributes {"kernel" = %2, "stride" = %3, "padding" = %4, "ceil_mode" = %5, "kind" = %6, "count_include_pad" = %7}
      %8 = irdl.base "!builtin.tensor" 
      irdl.results(result: %8)
    }
    irdl.operation @popnn_max_pool_with_indices {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.dense_array" 
      %2 = irdl.base "#builtin.dense_array" 
      %3 = irdl.base "#builtin.dense_array" 
      %4 = irdl.base "#builtin.integer" 
      irdl.attributes {"kernel" = %1, "stride" = %2, "padding" = %3, "ceil_mode" = %4}
      %5 = irdl.base "!builtin.tensor" 
      %6 = irdl.base "!builtin.tensor" 
      irdl.results(result: %5, indices: %6)
    }
    irdl.operation @popnn_max_pool_grad_with_indices {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, grad: %1, indices: %2)
      %3 = irdl.base "#builtin.dense_array" 
      %4 = irdl.base "#builtin.dense_array" 
      %5 = irdl.base "#builtin.dense_array" 
      %6 = irdl.base "#builtin.integer" 
      irdl.attributes {"kernel" = %3, "stride" = %4, "padding" = %5, "ceil_mode" = %6}
      %7 = irdl.base "!builtin.tensor" 
      irdl.results(result: %7)
    }
    irdl.operation @popnn_norm {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, scale: %1, bias: %2, stats: variadic %3)
      %4 = irdl.base "#builtin.string" 
      %5 = irdl.base "#builtin.float" 
      %6 = irdl.base "#builtin.integer" 
      %7 = irdl.base "#builtin.integer" 
      irdl.attributes {"kind" = %4, "epsilon" = %5, "num_groups" = %6, "num_dims" = %7}
      %8 = irdl.base "!builtin.tensor" 
      irdl.results(result: %8)
    }
    irdl.operation @popnn_norm_training {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, scale: %1, bias: %2, running_stats: variadic %3)
      %4 = irdl.base "#builtin.string" 
      %5 = irdl.base "#builtin.float" 
      %6 = irdl.base "#builtin.float" 
      %7 = irdl.base "#builtin.integer" 
      %8 = irdl.base "#builtin.integer" 
      irdl.attributes {"kind" = %4, "epsilon" = %5, "momentum" = %6, "num_groups" = %7, "num_dims" = %8}
      %9 = irdl.base "!builtin.tensor" 
      %10 = irdl.base "!builtin.tensor" 
      %11 = irdl.base "!builtin.tensor" 
      %12 = irdl.base "!builtin.tensor" 
      irdl.results(result: %9, mean: %10, invstd: %11, new_running_stats: variadic %12)
    }
    irdl.operation @popnn_norm_grad {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      %4 = irdl.base "!builtin.tensor" 
      irdl.operands(grad: %0, input: %1, mean: %2, invstd: %3, scale: %4)
      %5 = irdl.base "#builtin.string" 
      %6 = irdl.base "#builtin.float" 
      %7 = irdl.base "#builtin.integer" 
      %8 = irdl.base "#builtin.integer" 
      irdl.attributes {"kind" = %5, "epsilon" = %6, "num_groups" = %7, "num_dims" = %8}
      %9 = irdl.base "!builtin.tensor" 
      %10 = irdl.base "!builtin.tensor" 
      %11 = irdl.base "!builtin.tensor" 
      irdl.results(grad_input: %9, grad_scale: %10, grad_bias: %11)
    }
    irdl.operation @popnn_nonlinearity {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"kind" = %1, "dim" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @popnn_nonlinearity_grad {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(grad: %0, saved: %1)
      %2 = irdl.base "#builtin.string" 
      %3 = irdl.base "#builtin.integer" 
      irdl.attributes {"kind" = %2, "dim" = %3}
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(result: %4)
    }
    irdl.operation @popnn_nll_loss {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(log_probs: %0, target: %1, weight: variadic %2)
      %3 = irdl.base "#builtin.string" 
      %4 = irdl.base "#builtin.integer" 
      irdl.attributes {"reduction" = %3, "ignore_index" = %4}
      %5 = irdl.base "!builtin.tensor" 
      irdl.results(result: %5)
    }
    irdl.operation @popnn_nll_loss_grad {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      irdl.operands(grad: %0, log_probs: %1, target: %2, weight: variadic %3)
      %4 = irdl.base "#builtin.string" 
      %5 = irdl.base "#builtin.integer" 
      irdl.attributes {"reduction" = %4, "ignore_index" = %5}
      %6 = irdl.base "!builtin.tensor" 
      irdl.results(result: %6)
    }
    irdl.operation @popops_add {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @popops_sub {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @popops_mul {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @popops_div {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @popops_map {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(in1: %0, in2: variadic %1, in3: variadic %2)
      %3 = irdl.base "#builtin.string" 
      irdl.attributes {"expr" = %3}
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(result: %4)
    }
    irdl.operation @popops_map_in_place {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(in1: %0, in2: variadic %1, in3: variadic %2)
      %3 = irdl.base "#builtin.string" 
      irdl.attributes {"expr" = %3}
    }
    irdl.operation @popops_cast {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @popops_reduce {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.dense_array" 
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.float" 
      irdl.attributes {"op" = %1, "dims" = %2, "keep_dims" = %3, "scale" = %4}
      %5 = irdl.base "!builtin.tensor" 
      irdl.results(result: %5)
    }
    irdl.operation @popops_arg_max {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"dim" = %1, "keep_dims" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @popops_arg_min {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"dim" = %1, "keep_dims" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @popops_multi_slice {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(table: %0, indices: %1)
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"dim" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @popops_gather {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, indices: %1)
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"dim" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @popops_scaled_add_to {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(destination: %0, source: %1)
      %2 = irdl.base "#builtin.float" 
      irdl.attributes {"scale" = %2}
    }
    irdl.operation @popops_pad {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.dense_array" 
      %2 = irdl.base "#builtin.dense_array" 
      %3 = irdl.base "#builtin.float" 
      irdl.attributes {"low" = %1, "high" = %2, "value" = %3}
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(result: %4)
    }
    irdl.operation @popops_multi_update_add {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(updates: %0, indices: %1)
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"padding_index" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @popops_multi_update {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(table: %0, updates: %1, indices: %2)
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.string" 
      irdl.attributes {"dim" = %3, "op" = %4}
      %5 = irdl.base "!builtin.tensor" 
      irdl.results(result: %5)
    }
    irdl.operation @popops_scatter {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, indices: %1, updates: %2)
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.string" 
      %5 = irdl.base "#builtin.integer" 
      irdl.attributes {"dim" = %3, "op" = %4, "include_self" = %5}
      %6 = irdl.base "!builtin.tensor" 
      irdl.results(result: %6)
    }
    irdl.operation @popops_histogram {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0, weight: variadic %1, given_edges: variadic %2)
      %3 = irdl.base "#builtin.string" 
      %4 = irdl.base "#builtin.dense_array" 
      %5 = irdl.base "#builtin.array" 
      %6 = irdl.base "#builtin.integer" 
      irdl.attributes {"convention" = %3, "bins" = %4, "range" = %5, "density" = %6}
      %7 = irdl.base "!builtin.tensor" 
      %8 = irdl.base "!builtin.tensor" 
      irdl.results(hist: %7, bin_edges: variadic %8)
    }
    irdl.operation @popops_segment_reduce {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(data: %0, segments: %1)
      %2 = irdl.base "#builtin.string" 
      %3 = irdl.base "#builtin.string" 
      %4 = irdl.base "#builtin.integer" 
      %5 = irdl.base "#builtin.array" 
      irdl.attributes {"reduce" = %2, "segments_by" = %3, "axis" = %4, "initial" = %5}
      %6 = irdl.base "!builtin.tensor" 
      irdl.results(result: %6)
    }
    irdl.operation @popops_segment_reduce_grad {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      irdl.operands(grad: %0, output: %1, data: %2, segments: %3)
      %4 = irdl.base "#builtin.string" 
      %5 = irdl.base "#builtin.string" 
      %6 = irdl.base "#builtin.integer" 
      %7 = irdl.base "#builtin.array" 
      irdl.attributes {"reduce" = %4, "segments_by" = %5, "axis" = %6, "initial" = %7}
      %8 = irdl.base "!builtin.tensor" 
      irdl.results(grad_data: %8)
    }
    irdl.operation @popops_cumulative_sum {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"dim" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @popops_cumulative_product {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"dim" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @popops_cumulative_log_sum_exp {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"dim" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @popops_cumulative_max {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"dim" = %1}
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(values: %2, indices: %3)
    }
    irdl.operation @popops_cumulative_min {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"dim" = %1}
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(values: %2, indices: %3)
    }
    irdl.operation @popops_sort_key_value {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(keys: %0, values: %1)
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.integer" 
      irdl.attributes {"dim" = %2, "descending" = %3, "stable" = %4}
      %5 = irdl.base "!builtin.tensor" 
      %6 = irdl.base "!builtin.tensor" 
      irdl.results(sorted_keys: %5, sorted_values: %6)
    }
    irdl.operation @popops_top_k {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.integer" 
      irdl.attributes {"dim" = %1, "k" = %2, "largest" = %3, "sorted" = %4}
      %5 = irdl.base "!builtin.tensor" 
      %6 = irdl.base "!builtin.tensor" 
      irdl.results(values: %5, indices: %6)
    }
    irdl.operation @popops_order_statistic {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.integer" 
      irdl.attributes {"statistic" = %1, "dim" = %2, "k" = %3, "keep_dims" = %4}
      %5 = irdl.base "!builtin.tensor" 
      %6 = irdl.base "!builtin.tensor" 
      irdl.results(values: %5, indices: %6)
    }
    irdl.operation @popops_search_sorted {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      %2 = irdl.base "!builtin.tensor" 
      irdl.operands(sorted_sequence: %0, input: %1, sorter: variadic %2)
      %3 = irdl.base "#builtin.integer" 
      irdl.attributes {"right" = %3}
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(result: %4)
    }
    irdl.operation @poprand_dropout {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.float" 
      irdl.attributes {"p" = %1}
      %2 = irdl.base "!builtin.tensor" 
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2, mask: %3)
    }
    irdl.operation @poprand_uniform {
      %0 = irdl.base "#builtin.float" 
      %1 = irdl.base "#builtin.float" 
      irdl.attributes {"min_val" = %0, "max_val" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @poprand_normal {
      %0 = irdl.base "#builtin.float" 
      %1 = irdl.base "#builtin.float" 
      irdl.attributes {"mean" = %0, "std_dev" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @reshape {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @dim_shuffle {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.dense_array" 
      irdl.attributes {"permutation" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @slice {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.dense_array" 
      %2 = irdl.base "#builtin.dense_array" 
      %3 = irdl.base "#builtin.dense_array" 
      irdl.attributes {"begin" = %1, "end" = %2, "stride" = %3}
      %4 = irdl.base "!builtin.tensor" 
      irdl.results(result: %4)
    }
    irdl.operation @concat {
      %0 = irdl.base "!builtin.tensor" 
      %1 = irdl.base "!builtin.tensor" 
      irdl.operands(lhs: %0, rhs: %1)
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"dim" = %2}
      %3 = irdl.base "!builtin.tensor" 
      irdl.results(result: %3)
    }
    irdl.operation @broadcast {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "!builtin.tensor" 
      irdl.results(result: %1)
    }
    irdl.operation @reverse {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.dense_array" 
      irdl.attributes {"dims" = %1}
      %2 = irdl.base "!builtin.tensor" 
      irdl.results(result: %2)
    }
    irdl.operation @program_remote_load {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(tensor: %0)
      %1 = irdl.base "#builtin.string" 
      irdl.attributes {"buffer" = %1}
    }
    irdl.operation @program_remote_store {
      %0 = irdl.base "!builtin.tensor" 
      irdl.operands(tensor: %0)
      %1 = irdl.base "#builtin.string" 
      irdl.attributes {"buffer" = %1}
    }
  }
}
