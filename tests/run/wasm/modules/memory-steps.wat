;; Grows four pages at a time until memory.grow refuses, then aborts (unreachable). The cap in
;; the tests is not a multiple of the step: the memory never reaches it, so only the refused
;; request itself can tell this abort apart from any other trap.
(module
  (memory (export "memory") 1)
  (func (export "alloc") (param $len i32) (result i32)
    (i32.const 1024))
  (func (export "simulate") (param $ptr i32) (param $len i32) (result i64)
    (loop $more
      (br_if $more (i32.ne (memory.grow (i32.const 4)) (i32.const -1))))
    (unreachable))
)
