;; Answers the first two ticks, then loops forever: out of fuel on tick 3.
(module
  (memory (export "memory") 1)
  (global $ticks (mut i32) (i32.const 0))
  (data (i32.const 2048) "{\"move\":\"0\"}")
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "act") (param i32 i32) (result i64)
    (global.set $ticks (i32.add (global.get $ticks) (i32.const 1)))
    (if (i32.gt_u (global.get $ticks) (i32.const 2)) (then (loop $forever (br $forever))))
    (i64.or (i64.shl (i64.const 2048) (i64.const 32)) (i64.const 12))))
