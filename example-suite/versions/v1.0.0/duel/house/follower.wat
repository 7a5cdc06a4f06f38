;; Duel's house controller "follower": keeps its paddle's centre on the ball's centre.
;; It joins every tournament, so a single produced controller can be graded alone: a controller
;; that beats it plays better than chasing the ball.
;;
;; The world is compact JSON: the first "y": is the ball's, the second the paddle's own.
(module
  (memory (export "memory") 1)
  (data (i32.const 0) "{\"move\":\"up\"}{\"move\":\"down\"}{\"move\":\"stay\"}")

  (func (export "alloc") (param i32) (result i32) (i32.const 1024))

  ;; The address just after the n-th "y": in [p, end), or -1.
  (func $after_y (param $p i32) (param $end i32) (param $n i32) (result i32)
    (block $done
      (loop $scan
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 4)) (local.get $end)))
        (if (i32.eq (i32.load (local.get $p)) (i32.const 0x3a227922))
          (then
            (local.set $n (i32.sub (local.get $n) (i32.const 1)))
            (if (i32.eqz (local.get $n)) (then (return (i32.add (local.get $p) (i32.const 4)))))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $scan)))
    (i32.const -1))

  ;; The integer written at p (an optional minus sign, then digits).
  (func $int (param $p i32) (result i32) (local $value i32) (local $negative i32) (local $digit i32)
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 45))
      (then (local.set $negative (i32.const 1)) (local.set $p (i32.add (local.get $p) (i32.const 1)))))
    (block $done
      (loop $digits
        (local.set $digit (i32.sub (i32.load8_u (local.get $p)) (i32.const 48)))
        (br_if $done (i32.gt_u (local.get $digit) (i32.const 9)))
        (local.set $value (i32.add (i32.mul (local.get $value) (i32.const 10)) (local.get $digit)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $digits)))
    (if (result i32) (local.get $negative)
      (then (i32.sub (i32.const 0) (local.get $value)))
      (else (local.get $value))))

  ;; {"move":"up"} is at 0 (13 bytes), {"move":"down"} at 13 (15), {"move":"stay"} at 28 (15).
  (func (export "act") (param $ptr i32) (param $len i32) (result i64)
    (local $end i32) (local $ball i32) (local $paddle i32) (local $gap i32)
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    (local.set $ball (call $after_y (local.get $ptr) (local.get $end) (i32.const 1)))
    (local.set $paddle (call $after_y (local.get $ptr) (local.get $end) (i32.const 2)))
    (if (i32.or (i32.lt_s (local.get $ball) (i32.const 0)) (i32.lt_s (local.get $paddle) (i32.const 0)))
      (then (return (i64.or (i64.shl (i64.const 28) (i64.const 32)) (i64.const 15)))))
    ;; gap = ball centre (y + 4) - paddle centre (y + 30)
    (local.set $gap (i32.sub (i32.add (call $int (local.get $ball)) (i32.const 4))
                             (i32.add (call $int (local.get $paddle)) (i32.const 30))))
    (if (i32.lt_s (local.get $gap) (i32.const -4)) (then (return (i64.const 13))))
    (if (i32.gt_s (local.get $gap) (i32.const 4))
      (then (return (i64.or (i64.shl (i64.const 13) (i64.const 32)) (i64.const 15)))))
    (i64.or (i64.shl (i64.const 28) (i64.const 32)) (i64.const 15))))
