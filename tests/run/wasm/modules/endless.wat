;; Implements the ABI and never answers: the entry loops forever, so only the fuel budget or
;; the wall clock stops it.
(module
  (memory (export "memory") 1)
  (func (export "alloc") (param $len i32) (result i32)
    (i32.const 1024))
  (func (export "simulate") (param $ptr i32) (param $len i32) (result i64)
    (loop $forever
      (br $forever))
    (unreachable))
)
