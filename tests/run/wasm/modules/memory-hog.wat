;; Starts with two pages and grows one page at a time until memory.grow refuses, then aborts
;; the way Rust's allocator does on exhaustion (unreachable).
(module
  (memory (export "memory") 2)
  (func (export "alloc") (param $len i32) (result i32)
    (i32.const 1024))
  (func (export "simulate") (param $ptr i32) (param $len i32) (result i64)
    (loop $more
      (br_if $more (i32.ne (memory.grow (i32.const 1)) (i32.const -1))))
    (unreachable))
)
