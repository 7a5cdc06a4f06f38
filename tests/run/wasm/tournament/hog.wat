;; Grows its memory a page per tick and traps when the cap refuses a page, as Rust's allocator does.
(module
  (memory (export "memory") 1)
  (data (i32.const 2048) "{\"move\":\"0\"}")
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "act") (param i32 i32) (result i64)
    (if (i32.eq (memory.grow (i32.const 1)) (i32.const -1)) (then unreachable))
    (i64.or (i64.shl (i64.const 2048) (i64.const 32)) (i64.const 12))))
