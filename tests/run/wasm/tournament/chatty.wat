;; Answers 70,000 bytes of its memory: longer than any action may be.
(module
  (memory (export "memory") 2)
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "act") (param i32 i32) (result i64) (i64.const 70000)))
