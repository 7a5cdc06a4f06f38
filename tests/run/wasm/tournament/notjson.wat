;; Answers bytes that are not JSON at all.
(module
  (memory (export "memory") 1)
  (data (i32.const 2048) "move up!")
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "act") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 2048) (i64.const 32)) (i64.const 8))))
