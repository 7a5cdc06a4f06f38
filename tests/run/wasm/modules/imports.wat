;; Implements the ABI but imports a logging function, which the ABI forbids.
(module
  (import "env" "log" (func $log (param i32 i32)))
  (memory (export "memory") 1)
  (func (export "alloc") (param $len i32) (result i32)
    (i32.const 1024))
  (func (export "simulate") (param $ptr i32) (param $len i32) (result i64)
    (call $log (local.get $ptr) (local.get $len))
    (i64.const 0))
)
