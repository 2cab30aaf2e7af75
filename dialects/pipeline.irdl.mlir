// IRDL definition of the 'pipeline' dialect, generated from dialects/pipeline.py.
// Do not edit: regenerate with `python -m ipu_mlir.dialects`.
// Use: torch-mlir-opt --irdl-file=dialects/pipeline.irdl.mlir <file>
module {
  irdl.dialect @pipeline {
    irdl.operation @schedule {
      %0 = irdl.any
      irdl.operands(inputs: variadic %0)
      %1 = irdl.base "#builtin.string" 
      %2 = irdl.base "#builtin.integer" 
      %3 = irdl.base "#builtin.integer" 
      %4 = irdl.base "#builtin.integer" 
      %5 = irdl.base "#builtin.integer" 
      %6 = irdl.base "#builtin.integer" 
      irdl.attributes {"kind" = %1, "num_stages" = %2, "num_ipus" = %3, "training" = %4, "device_iterations" = %5, "gradient_accumulation" = %6}
      %7 = irdl.any
      irdl.results(outputs: variadic %7)
      %8 = irdl.region
      irdl.regions(body: %8)
    }
    irdl.operation @stage {
      %0 = irdl.any
      irdl.operands(inputs: variadic %0)
      %1 = irdl.base "#builtin.integer" 
      %2 = irdl.base "#builtin.integer" 
      irdl.attributes {"stage_id" = %1, "ipu_id" = %2}
      %3 = irdl.any
      irdl.results(outputs: variadic %3)
      %4 = irdl.region
      irdl.regions(body: %4)
    }
    irdl.operation @phase {
      %0 = irdl.any
      irdl.operands(inputs: variadic %0)
      %1 = irdl.base "#builtin.integer" 
      irdl.attributes {"phase_id" = %1}
      %2 = irdl.any
      irdl.results(outputs: variadic %2)
      %3 = irdl.region
      irdl.regions(body: %3)
    }
    irdl.operation @yield {
      %0 = irdl.any
      irdl.operands(values: variadic %0)
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
