// IRDL definition of the 'ipu' dialect, generated from dialects/ipu.py.
// Do not edit: regenerate with `python -m ipu_mlir.dialects`.
// Use: torch-mlir-opt --irdl-file=dialects/ipu.irdl.mlir <file>
module {
  irdl.dialect @ipu {
    irdl.attribute @output_mode {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.integer" 
      irdl.parameters(mode: %0, period: %1)
    }
    irdl.attribute @state_anchor {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.integer" 
      irdl.parameters(name: %0, mode: %1, period: %2)
    }
    irdl.attribute @optimizer {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.dictionary" 
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.dictionary" 
      %4 = irdl.base "#builtin.dictionary" 
      %5 = irdl.base "#builtin.array" 
      irdl.parameters(kind: %0, flags: %1, groups: %2, param_groups: %3, constants: %4, max_grad_norm: %5)
    }
    irdl.attribute @block {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.integer" 
      irdl.parameters(user_id: %0, ipu_id: %1)
    }
    irdl.attribute @tensor_location {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      irdl.parameters(storage: %0, replicated_sharding: %1, io_tiles: %2)
    }
    irdl.attribute @role {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.string" 
      irdl.parameters(kind: %0, name: %1)
    }
    irdl.attribute @stage {
      %0 = irdl.base "#builtin.array" 
      %1 = irdl.base "#builtin.integer" 
      irdl.parameters(blocks: %0, ipu: %1)
    }
    irdl.attribute @strategy {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.array" 
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.integer" 
      %5 = irdl.base "#builtin.integer" 
      %6 = irdl.base "#builtin.integer" 
      %7 = irdl.base "#builtin.integer" 
      %8 = irdl.base "#builtin.dense_array" 
      %9 = irdl.base "#builtin.string" 
      %10 = irdl.base "#builtin.integer" 
      irdl.parameters(kind: %0, auto_stage: %1, stages: %2, training: %3, device_iterations: %4, gradient_accumulation: %5, replication_factor: %6, auto_round_num_ipus: %7, phases: %8, liveness: %9, separate_backward_phase: %10)
    }
    irdl.operation @for_loop {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"name" = %0, "count" = %1, "num_values" = %2}
      %3 = irdl.region
      irdl.regions(body: %3)
    }
    irdl.operation @if {
      %0 = irdl.any
      irdl.operands(condition: %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"name" = %1, "num_values" = %2}
      %3 = irdl.region
      %4 = irdl.region
      irdl.regions(then_body: %3, else_body: %4)
    }
    irdl.operation @carried {
      %0 = irdl.any
      irdl.operands(initial: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"index" = %1}
      %2 = irdl.any
      irdl.results(value: %2)
    }
    irdl.operation @region_yield {
      %0 = irdl.any
      irdl.operands(value: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"index" = %1}
    }
    irdl.operation @region_result {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"region" = %0, "index" = %1}
      %2 = irdl.any
      irdl.results(value: %2)
    }
    irdl.operation @replica_shard {
      %0 = irdl.any
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"kind" = %1, "replication_factor" = %2}
      %3 = irdl.any
      irdl.results(output: %3)
    }
    irdl.operation @replica_unshard {
      %0 = irdl.any
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"replication_factor" = %1}
      %2 = irdl.any
      irdl.results(output: %2)
    }
    irdl.operation @sgd_update {
      %0 = irdl.any
      %1 = irdl.any
      %2 = irdl.any
      %3 = irdl.any
      %4 = irdl.any
      irdl.operands(weight: %0, grad: %1, state: variadic %2, step: variadic %3, hyper: variadic %4)
      %5 = irdl.base "#builtin.array" 
      %6 = irdl.base "#builtin.string" 
      %7 = irdl.base "#builtin.integer" 
      %8 = irdl.base "#builtin.integer" 
      irdl.attributes {"hyper_names" = %5, "variant" = %6, "with_momentum" = %7, "nesterov" = %8}
      %9 = irdl.any
      %10 = irdl.any
      %11 = irdl.any
      irdl.results(new_weight: %9, new_state: variadic %10, new_step: variadic %11)
    }
    irdl.operation @adam_update {
      %0 = irdl.any
      %1 = irdl.any
      %2 = irdl.any
      %3 = irdl.any
      %4 = irdl.any
      irdl.operands(weight: %0, grad: %1, state: variadic %2, step: variadic %3, hyper: variadic %4)
      %5 = irdl.base "#builtin.array" 
      %6 = irdl.base "#builtin.string" 
      %7 = irdl.base "#builtin.integer" 
      irdl.attributes {"hyper_names" = %5, "variant" = %6, "bias_correction" = %7}
      %8 = irdl.any
      %9 = irdl.any
      %10 = irdl.any
      irdl.results(new_weight: %8, new_state: variadic %9, new_step: variadic %10)
    }
    irdl.operation @rmsprop_update {
      %0 = irdl.any
      %1 = irdl.any
      %2 = irdl.any
      %3 = irdl.any
      %4 = irdl.any
      irdl.operands(weight: %0, grad: %1, state: variadic %2, step: variadic %3, hyper: variadic %4)
      %5 = irdl.base "#builtin.array" 
      %6 = irdl.base "#builtin.integer" 
      %7 = irdl.base "#builtin.integer" 
      %8 = irdl.base "#builtin.integer" 
      irdl.attributes {"hyper_names" = %5, "centered" = %6, "with_momentum" = %7, "use_tf_variant" = %8}
      %9 = irdl.any
      %10 = irdl.any
      %11 = irdl.any
      irdl.results(new_weight: %9, new_state: variadic %10, new_step: variadic %11)
    }
    irdl.operation @lamb_update {
      %0 = irdl.any
      %1 = irdl.any
      %2 = irdl.any
      %3 = irdl.any
      %4 = irdl.any
      irdl.operands(weight: %0, grad: %1, state: variadic %2, step: variadic %3, hyper: variadic %4)
      %5 = irdl.base "#builtin.array" 
      %6 = irdl.base "#builtin.integer" 
      irdl.attributes {"hyper_names" = %5, "bias_correction" = %6}
      %7 = irdl.any
      %8 = irdl.any
      %9 = irdl.any
      irdl.results(new_weight: %7, new_state: variadic %8, new_step: variadic %9)
    }
    irdl.operation @accumulate_grad {
      %0 = irdl.any
      %1 = irdl.any
      %2 = irdl.any
      irdl.operands(accumulator: %0, grad: %1, count: %2)
      %3 = irdl.base "#builtin.string" 
      %4 = irdl.base "#builtin.string" 
      irdl.attributes {"reduction" = %3, "strategy" = %4}
      %5 = irdl.any
      irdl.results(output: %5)
    }
    irdl.operation @replica_reduce {
      %0 = irdl.any
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.any
      irdl.attributes {"kind" = %1, "replication_factor" = %2, "group" = %3}
      %4 = irdl.any
      irdl.results(output: %4)
    }
    irdl.operation @replica_broadcast {
      %0 = irdl.any
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"replication_factor" = %1}
      %2 = irdl.any
      irdl.results(output: %2)
    }
    irdl.operation @loss_scale {
      %0 = irdl.any
      %1 = irdl.any
      irdl.operands(input: %0, scale: %1)
      %2 = irdl.base "#builtin.string" 
      irdl.attributes {"mode" = %2}
      %3 = irdl.any
      irdl.results(output: %3)
    }
    irdl.operation @print_tensor {
      %0 = irdl.any
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.string" 
      irdl.attributes {"title" = %1}
      %2 = irdl.any
      irdl.results(output: %2)
    }
    irdl.operation @identity_loss {
      %0 = irdl.any
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.string" 
      irdl.attributes {"reduction" = %1}
      %2 = irdl.any
      irdl.results(output: %2)
    }
    irdl.operation @nop {
      %0 = irdl.any
      irdl.operands(input: %0)
      %1 = irdl.any
      irdl.results(output: %1)
    }
    irdl.operation @recomputation_checkpoint {
      %0 = irdl.any
      irdl.operands(input: %0)
      %1 = irdl.any
      irdl.results(output: %1)
    }
    irdl.operation @set_available_memory {
      %0 = irdl.any
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.float" 
      irdl.attributes {"proportion" = %1}
      %2 = irdl.any
      irdl.results(output: %2)
    }
    irdl.operation @set_overlap {
      %0 = irdl.any
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.string" 
      irdl.attributes {"direction" = %1, "mode" = %2}
      %3 = irdl.any
      irdl.results(output: %3)
    }
    irdl.operation @multi_conv {
      %0 = irdl.any
      irdl.operands(input: %0)
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.string" 
      irdl.attributes {"group" = %1, "index" = %2, "plan_type" = %3}
      %4 = irdl.any
      irdl.results(output: %4)
    }
  }
}
