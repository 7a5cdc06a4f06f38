//! Bounce: N particles in a one-dimensional box, simulated tick by tick.
//!
//! The host calls `alloc(len)`, writes the input JSON there, calls `simulate(ptr, len)` and
//! reads the answer at `ret >> 32`, `ret & 0xffff_ffff` bytes long.

/// Reserves `len` bytes the host writes the input into. The buffer is never freed: one
/// instance answers one input.
#[no_mangle]
pub extern "C" fn alloc(len: i32) -> i32 {
    let mut buf = Vec::<u8>::with_capacity(len.max(0) as usize);
    let ptr = buf.as_mut_ptr();
    core::mem::forget(buf);
    ptr as i32
}

/// Reads the scenario at `ptr` (`len` bytes of JSON) and returns the answer as
/// `(answer_ptr << 32) | answer_len`.
///
/// TODO: parse the input, run the simulation and answer `{"checksum": H}`. For now the
/// answer is empty (pointer 0, length 0).
#[no_mangle]
pub extern "C" fn simulate(ptr: i32, len: i32) -> i64 {
    let _input = (ptr, len);
    0
}
