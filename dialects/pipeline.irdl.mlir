// IRDL definition of the 'pipeline' dialect, generated from dialects/pipeline.py.
// Do not edit: regenerate with `python -m ipu_mlir.dialects`.
// Use: torch-mlir-opt --irdl-file=dialects/pipeline.irdl.mlir <file>
module {
  irdl.dialect @pipeline {
    irdl.attribute @phases {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.dense_array" 
      irdl.parameters(liveness: %0, forward_phases: %1, stage_phases: %2)
    }
    irdl.attribute @plan {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.dense_array" 
      irdl.parameters(kind: %0, forward_stages: %1, num_stages: %2, num_ipus: %3, stage_ipus: %4)
    }
    irdl.operation @schedule {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.integer" 
      %5 = irdl.base "#builtin.integer" 
      irdl.attributes {"kind" = %0, "num_stages" = %1, "num_ipus" = %2, "training" = %3, "device_iterations" = %4, "gradient_accumulation" = %5}
      %6 = irdl.region
      irdl.regions(body: %6)
    }
    irdl.operation @stage {
      %0 = irdl.base "#builtin.integer" 
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"stage_id" = %0, "ipu_id" = %1}
      %2 = irdl.region
      irdl.regions(body: %2)
    }
    irdl.operation @phase {
      %0 = irdl.base "#builtin.integer" 
      irdl.attributes {"phase_id" = %0}
      %1 = irdl.region
      irdl.regions(body: %1)
    }
    irdl.operation @output {
      %0 = irdl.any
      irdl.operands(value: %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"index" = %1}
    }
    irdl.operation @send {
      %0 = irdl.any
      irdl.operands(value: %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.integer" 
      irdl.attributes {"channel" = %1, "src_ipu" = %2, "dst_ipu" = %3}
    }
    irdl.operation @recv {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"channel" = %0, "src_ipu" = %1, "dst_ipu" = %2}
      %3 = irdl.any
      irdl.results(value: %3)
    }
    irdl.operation @stash {
      %0 = irdl.any
      irdl.operands(value: %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"stash_id" = %1, "depth" = %2}
    }
    irdl.operation @restore {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"stash_id" = %0, "depth" = %1}
      %2 = irdl.any
      irdl.results(value: %2)
    }
    irdl.operation @remote_store {
      %0 = irdl.any
      irdl.operands(value: %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"buffer" = %1, "ipu_id" = %2}
    }
    irdl.operation @remote_load {
      %0 = irdl.base "#builtin.string" 
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"buffer" = %0, "ipu_id" = %1}
      %2 = irdl.any
      irdl.results(value: %2)
    }
  }
}
