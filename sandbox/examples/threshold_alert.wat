;; A threshold alert written directly in WebAssembly text (WAT).
;; Reads the counter "errors" from the tenant's kv, prints it, and when it is at least 10
;; emits an "alert" event; returns {"alerted": true|false} as the run's result.
(module
  (import "cadenza" "kv_get" (func $kv_get (param i32 i32 i32 i32) (result i32)))
  (import "cadenza" "emit" (func $emit (param i32 i32 i32 i32) (result i32)))
  (import "cadenza" "print" (func $print (param i32 i32) (result i32)))
  (import "cadenza" "result" (func $result (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "errors")                            ;; key, 6 bytes
  (data (i32.const 16) "alert")                            ;; event type, 5 bytes
  (data (i32.const 32) "{\"message\":\"too many errors\"}")  ;; payload, 29 bytes
  (data (i32.const 64) "{\"alerted\":true}")               ;; 16 bytes
  (data (i32.const 96) "{\"alerted\":false}")              ;; 17 bytes
  (data (i32.const 128) "checked errors\n")                ;; 15 bytes
  ;; the value is JSON text written at offset 1024 (a small integer: its digits)
  (func (export "main")
    (local $len i32) (local $i i32) (local $n i32) (local $c i32)
    (drop (call $print (i32.const 128) (i32.const 15)))
    (local.set $len (call $kv_get (i32.const 0) (i32.const 6) (i32.const 1024) (i32.const 64)))
    ;; parse the decimal digits of the value (absent or not a number counts as 0)
    (block $done
      (loop $digits
        (br_if $done (i32.ge_s (local.get $i) (local.get $len)))
        (local.set $c (i32.load8_u (i32.add (i32.const 1024) (local.get $i))))
        (br_if $done (i32.or (i32.lt_u (local.get $c) (i32.const 48)) (i32.gt_u (local.get $c) (i32.const 57))))
        (local.set $n (i32.add (i32.mul (local.get $n) (i32.const 10)) (i32.sub (local.get $c) (i32.const 48))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $digits)))
    (if (i32.ge_s (local.get $n) (i32.const 10))
      (then
        (drop (call $emit (i32.const 16) (i32.const 5) (i32.const 32) (i32.const 29)))
        (drop (call $result (i32.const 64) (i32.const 16))))
      (else
        (drop (call $result (i32.const 96) (i32.const 17)))))))
