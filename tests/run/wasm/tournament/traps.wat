;; Plays perfectly on the first tick, then hits `unreachable`.
(module
  (memory (export "memory") 1)
  (global $ticks (mut i32) (i32.const 0))
  (data (i32.const 2048) "{\"move\":\"0\"}")
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "act") (param $ptr i32) (param $len i32) (result i64)
    (global.set $ticks (i32.add (global.get $ticks) (i32.const 1)))
    (if (i32.gt_u (global.get $ticks) (i32.const 1)) (then unreachable))
    (i32.store8 (i32.const 2057) (i32.load8_u (i32.add (local.get $ptr) (i32.const 5))))
    (i64.or (i64.shl (i64.const 2048) (i64.const 32)) (i64.const 12))))
