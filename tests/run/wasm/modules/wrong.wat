;; correct.wat with one bug: a particle reflected off the right wall keeps its velocity, so it
;; answers in the right shape with the wrong checksum.
;;
;; Input (JSON): {"width": W, "particles": N, "ticks": T, "seed": S}. Keys are told apart by
;; their first letter, so any key order and whitespace parse. Output: {"checksum":H}.
;; See example-suite/test-cases/performance/medium/bounce/v1.0.0/specs/problem.md.
(module
  (memory (export "memory") 1)
  (data (i32.const 0) "{\"checksum\":")
  (global $heap (mut i32) (i32.const 1024))
  (global $width (mut i32) (i32.const 0))
  (global $count (mut i32) (i32.const 0))
  (global $ticks (mut i32) (i32.const 0))
  (global $seed (mut i32) (i32.const 0))
  (global $rng (mut i32) (i32.const 0))

  ;; Bump allocator, 8-byte aligned, growing memory on demand; nothing is ever freed.
  (func $alloc (export "alloc") (param $len i32) (result i32)
    (local $ptr i32) (local $end i32)
    (local.set $ptr (i32.and (i32.add (global.get $heap) (i32.const 7)) (i32.const -8)))
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    (if (i32.gt_u (local.get $end) (i32.shl (memory.size) (i32.const 16)))
      (then
        (if (i32.eq
              (memory.grow (i32.sub
                (i32.shr_u (i32.add (local.get $end) (i32.const 65535)) (i32.const 16))
                (memory.size)))
              (i32.const -1))
          (then unreachable))))
    (global.set $heap (local.get $end))
    (local.get $ptr))

  (func $store (param $key i32) (param $value i32)
    (if (i32.eq (local.get $key) (i32.const 119)) (then (global.set $width (local.get $value))))
    (if (i32.eq (local.get $key) (i32.const 112)) (then (global.set $count (local.get $value))))
    (if (i32.eq (local.get $key) (i32.const 116)) (then (global.set $ticks (local.get $value))))
    (if (i32.eq (local.get $key) (i32.const 115)) (then (global.set $seed (local.get $value)))))

  ;; Scan the input: a quoted string sets the current key (its first letter), a run of digits
  ;; is that key's value.
  (func $parse (param $p i32) (param $len i32)
    (local $end i32) (local $c i32) (local $key i32) (local $num i64)
    (local.set $end (i32.add (local.get $p) (local.get $len)))
    (block $done
      (loop $scan
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $p)))
        (if (i32.eq (local.get $c) (i32.const 34))
          (then
            (local.set $key (i32.load8_u (i32.add (local.get $p) (i32.const 1))))
            (block $closed
              (loop $string
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (br_if $closed (i32.ge_u (local.get $p) (local.get $end)))
                (br_if $string (i32.ne (i32.load8_u (local.get $p)) (i32.const 34)))))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $scan)))
        (if (i32.lt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10))
          (then
            (local.set $num (i64.const 0))
            (block $number
              (loop $digits
                (br_if $number (i32.ge_u (local.get $p) (local.get $end)))
                (local.set $c (i32.sub (i32.load8_u (local.get $p)) (i32.const 48)))
                (br_if $number (i32.ge_u (local.get $c) (i32.const 10)))
                (local.set $num (i64.add (i64.mul (local.get $num) (i64.const 10))
                                         (i64.extend_i32_u (local.get $c))))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (br $digits)))
            (call $store (local.get $key) (i32.wrap_i64 (local.get $num)))
            (br $scan)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $scan))))

  ;; The generator: a 32-bit LCG, each draw being the state's top 24 bits.
  (func $next (result i32)
    (global.set $rng (i32.add (i32.mul (global.get $rng) (i32.const 1664525))
                              (i32.const 1013904223)))
    (i32.shr_u (global.get $rng) (i32.const 8)))

  (func $fnv (param $h i32) (param $value i32) (result i32)
    (i32.mul (i32.xor (local.get $h) (local.get $value)) (i32.const 16777619)))

  ;; Write {"checksum":H} and return its (ptr << 32) | len.
  (func $answer (param $h i32) (result i64)
    (local $out i32) (local $digits i32) (local $rest i32) (local $p i32)
    (local.set $out (call $alloc (i32.const 24)))
    (memory.copy (local.get $out) (i32.const 0) (i32.const 12))
    (local.set $digits (i32.const 1))
    (local.set $rest (i32.div_u (local.get $h) (i32.const 10)))
    (block $counted
      (loop $count
        (br_if $counted (i32.eqz (local.get $rest)))
        (local.set $digits (i32.add (local.get $digits) (i32.const 1)))
        (local.set $rest (i32.div_u (local.get $rest) (i32.const 10)))
        (br $count)))
    (local.set $p (i32.add (i32.add (local.get $out) (i32.const 12)) (local.get $digits)))
    (i32.store8 (local.get $p) (i32.const 125))
    (loop $write
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i32.store8 (local.get $p) (i32.add (i32.rem_u (local.get $h) (i32.const 10)) (i32.const 48)))
      (local.set $h (i32.div_u (local.get $h) (i32.const 10)))
      (br_if $write (i32.ne (local.get $p) (i32.add (local.get $out) (i32.const 12)))))
    (i64.or (i64.shl (i64.extend_i32_u (local.get $out)) (i64.const 32))
            (i64.extend_i32_u (i32.add (local.get $digits) (i32.const 13)))))

  (func (export "simulate") (param $ptr i32) (param $len i32) (result i64)
    (local $base i32) (local $end i32) (local $p i32) (local $x i32) (local $v i32)
    (local $last i32) (local $tick i32) (local $h i32)
    (call $parse (local.get $ptr) (local.get $len))
    (local.set $base (call $alloc (i32.shl (global.get $count) (i32.const 3))))
    (local.set $end (i32.add (local.get $base) (i32.shl (global.get $count) (i32.const 3))))
    (global.set $rng (global.get $seed))
    (local.set $p (local.get $base))
    (block $placed
      (loop $place
        (br_if $placed (i32.ge_u (local.get $p) (local.get $end)))
        (i32.store (local.get $p) (i32.rem_u (call $next) (global.get $width)))
        (i32.store offset=4 (local.get $p)
          (i32.sub (i32.rem_u (call $next) (i32.const 17)) (i32.const 8)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $place)))
    (local.set $last (i32.sub (global.get $width) (i32.const 1)))
    (block $simulated
      (loop $tick_loop
        (br_if $simulated (i32.ge_u (local.get $tick) (global.get $ticks)))
        (local.set $p (local.get $base))
        (block $moved
          (loop $move
            (br_if $moved (i32.ge_u (local.get $p) (local.get $end)))
            (local.set $v (i32.load offset=4 (local.get $p)))
            (local.set $x (i32.add (i32.load (local.get $p)) (local.get $v)))
            (if (i32.lt_s (local.get $x) (i32.const 0))
              (then
                (local.set $x (i32.sub (i32.const 0) (local.get $x)))
                (i32.store offset=4 (local.get $p) (i32.sub (i32.const 0) (local.get $v))))
              (else
                (if (i32.gt_s (local.get $x) (local.get $last))
                  (then
                    ;; The bug: the velocity is not reversed at the right wall.
                    (local.set $x (i32.sub (i32.shl (local.get $last) (i32.const 1)) (local.get $x)))))))
            (i32.store (local.get $p) (local.get $x))
            (local.set $p (i32.add (local.get $p) (i32.const 8)))
            (br $move)))
        (local.set $tick (i32.add (local.get $tick) (i32.const 1)))
        (br $tick_loop)))
    (local.set $h (i32.const -2128831035))
    (local.set $p (local.get $base))
    (block $summed
      (loop $sum
        (br_if $summed (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $h (call $fnv (local.get $h) (i32.load (local.get $p))))
        (local.set $h (call $fnv (local.get $h)
          (i32.add (i32.load offset=4 (local.get $p)) (i32.const 8))))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $sum)))
    (call $answer (local.get $h)))
)
