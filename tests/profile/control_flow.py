"""A module with every control construct the profiler must count: br_table, nested loops,
if/else, early returns, branches out of a function, direct and mutual recursion,
call_indirect, multi-value results, bulk memory and memory.grow, and a start function.

`run(ptr, len)` echoes its input; the input's length and bytes steer every path.
"""

CONTROL_FLOW = r"""
(module
  (type $unary (func (param i32) (result i32)))
  (type $binary (func (param i32 i32) (result i32)))
  (memory (export "memory") 2 6)
  (global $seed (mut i32) (i32.const 0))
  (table 4 funcref)
  (elem (i32.const 0) func $double $square $negate $pair_sum)
  (start $init)

  (func $init
    i32.const 7
    global.set $seed)

  (func (export "alloc") (param i32) (result i32)
    i32.const 4096)

  (func $double (type $unary) (local.get 0) (i32.const 2) (i32.mul))
  (func $square (type $unary) (local.get 0) (local.get 0) (i32.mul))
  (func $negate (type $unary) (i32.const 0) (local.get 0) (i32.sub))
  (func $pair_sum (type $binary) (local.get 0) (local.get 1) (i32.add))

  (func $fib (param $n i32) (result i32)
    local.get $n
    i32.const 2
    i32.lt_u
    if
      local.get $n
      return
    end
    local.get $n
    i32.const 1
    i32.sub
    call $fib
    local.get $n
    i32.const 2
    i32.sub
    call $fib
    i32.add)

  (func $even (param $n i32) (result i32)
    local.get $n
    i32.eqz
    if (result i32)
      i32.const 1
    else
      local.get $n
      i32.const 1
      i32.sub
      call $odd
    end)

  (func $odd (param $n i32) (result i32)
    local.get $n
    i32.eqz
    if (result i32)
      i32.const 0
    else
      local.get $n
      i32.const 1
      i32.sub
      call $even
    end)

  (func $classify (param $x i32) (result i32)
    block $d
      block $c
        block $b
          block $a
            local.get $x
            i32.const 5
            i32.rem_u
            br_table $a $b $c $a $d
          end
          i32.const 10
          return
        end
        i32.const 20
        local.get $x
        i32.const 1
        i32.and
        br_if 2
        drop
        i32.const 21
        return
      end
      nop
      i32.const 30
      return
    end
    i32.const 40)

  (func $find (param $ptr i32) (param $len i32) (param $byte i32) (result i32) (local $i i32)
    block $out
      loop $scan
        local.get $i
        local.get $len
        i32.ge_u
        br_if $out
        local.get $ptr
        local.get $i
        i32.add
        i32.load8_u
        local.get $byte
        i32.eq
        if
          local.get $i
          return
        end
        local.get $i
        i32.const 1
        i32.add
        local.set $i
        br $scan
      end
    end
    i32.const -1)

  (func $divmod (param i32 i32) (result i32 i32)
    local.get 0
    local.get 1
    i32.div_u
    local.get 0
    local.get 1
    i32.rem_u)

  (func $nested (param $n i32) (result i32) (local $i i32) (local $j i32) (local $acc i32)
    loop $outer
      i32.const 0
      local.set $j
      block $inner_done
        loop $inner
          local.get $j
          local.get $i
          i32.ge_u
          br_if $inner_done
          local.get $i
          local.get $j
          i32.xor
          i32.const 3
          i32.and
          if
            local.get $acc
            local.get $j
            local.get $j
            i32.const 3
            i32.rem_u
            call_indirect (type $unary)
            i32.add
            local.set $acc
          else
            local.get $acc
            local.get $i
            call $classify
            i32.add
            local.set $acc
          end
          local.get $j
          i32.const 1
          i32.add
          local.set $j
          br $inner
        end
      end
      local.get $i
      i32.const 1
      i32.add
      local.tee $i
      local.get $n
      i32.lt_u
      br_if $outer
    end
    local.get $acc)

  (func (export "run") (param $ptr i32) (param $len i32) (result i64) (local $n i32)
    local.get $len
    i32.const 24
    i32.rem_u
    local.set $n
    local.get $n
    call $nested
    local.get $n
    i32.const 12
    i32.rem_u
    call $fib
    i32.add
    local.get $len
    call $even
    i32.add
    i32.const 3
    i32.const 4
    i32.const 3
    call_indirect (type $binary)
    i32.add
    local.get $ptr
    local.get $len
    i32.const 122
    call $find
    i32.add
    local.get $len
    i32.const 3
    call $divmod
    i32.add
    i32.add
    global.set $seed
    i32.const 65536
    i32.const 0
    local.get $len
    memory.fill
    i32.const 70000
    local.get $ptr
    local.get $len
    memory.copy
    i32.const 1
    memory.grow
    drop
    i32.const 100
    memory.grow
    drop
    i32.const 1000
    memory.grow
    drop
    i64.const 0
    local.get $len
    i32.eqz
    br_if 0
    drop
    local.get $ptr
    i64.extend_i32_u
    i64.const 32
    i64.shl
    local.get $len
    i64.extend_i32_u
    i64.or)
)
"""
