;; Exports the ABI's names with the wrong types: a 64-bit alloc length, a 32-bit entry result.
(module
  (memory (export "memory") 1)
  (func (export "alloc") (param $len i64) (result i32)
    (i32.const 1024))
  (func (export "simulate") (param $ptr i32) (param $len i32) (result i32)
    (i32.const 0))
)
