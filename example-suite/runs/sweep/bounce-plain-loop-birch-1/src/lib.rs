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

/// Reads `{"width": W, "particles": N, "ticks": T, "seed": S}` and answers
/// `{"checksum": H}`, or `{"error": "..."}` when the input cannot be read.
#[no_mangle]
pub extern "C" fn simulate(ptr: i32, len: i32) -> i64 {
    // SAFETY: the host wrote `len` bytes at `ptr`, a buffer `alloc` handed out.
    let input = unsafe { core::slice::from_raw_parts(ptr as *const u8, len as usize) };
    let answer = match Scenario::parse(input) {
        Some(scenario) => format!("{{\"checksum\":{}}}", scenario.run()),
        None => String::from("{\"error\":\"unreadable input\"}"),
    };
    let bytes = answer.into_bytes().into_boxed_slice();
    let len = bytes.len() as u64;
    let ptr = Box::into_raw(bytes) as *mut u8 as u32 as u64;
    ((ptr << 32) | len) as i64
}

struct Scenario {
    width: u32,
    particles: u32,
    ticks: u32,
    seed: u32,
}

impl Scenario {
    /// Parses the flat JSON object of four unsigned integers, in any key order.
    fn parse(input: &[u8]) -> Option<Scenario> {
        let mut fields: [Option<u64>; 4] = [None; 4];
        let mut rest = skip_ws(input);
        rest = rest.strip_prefix(b"{")?;
        loop {
            rest = skip_ws(rest);
            rest = rest.strip_prefix(b"\"")?;
            let close = rest.iter().position(|&c| c == b'"')?;
            let slot = match &rest[..close] {
                b"width" => 0,
                b"particles" => 1,
                b"ticks" => 2,
                b"seed" => 3,
                _ => return None,
            };
            rest = skip_ws(&rest[close + 1..]);
            rest = rest.strip_prefix(b":")?;
            rest = skip_ws(rest);
            let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            if digits == 0 || digits > 10 {
                return None;
            }
            let mut value = 0u64;
            for &c in &rest[..digits] {
                value = value * 10 + u64::from(c - b'0');
            }
            fields[slot] = Some(value);
            rest = skip_ws(&rest[digits..]);
            match rest.first() {
                Some(b',') => rest = &rest[1..],
                Some(b'}') => break,
                _ => return None,
            }
        }
        if !skip_ws(&rest[1..]).is_empty() {
            return None;
        }
        let field = |i: usize| -> Option<u32> { u32::try_from(fields[i]?).ok() };
        let scenario = Scenario {
            width: field(0)?,
            particles: field(1)?,
            ticks: field(2)?,
            seed: field(3)?,
        };
        if scenario.width < 16 {
            return None;
        }
        Some(scenario)
    }

    /// Places the particles, moves them `ticks` times and folds the final state into FNV-1a.
    fn run(&self) -> u32 {
        let mut state = self.seed;
        let mut draw = || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            state >> 8
        };
        let mut xs = Vec::with_capacity(self.particles as usize);
        let mut vs = Vec::with_capacity(self.particles as usize);
        for _ in 0..self.particles {
            xs.push((draw() % self.width) as i32);
            vs.push((draw() % 17) as i32 - 8);
        }
        let last = self.width as i32 - 1;
        for _ in 0..self.ticks {
            for (x, v) in xs.iter_mut().zip(vs.iter_mut()) {
                let moved = *x + *v;
                if moved < 0 {
                    *x = -moved;
                    *v = -*v;
                } else if moved > last {
                    *x = 2 * last - moved;
                    *v = -*v;
                } else {
                    *x = moved;
                }
            }
        }
        let mut h: u32 = 2_166_136_261;
        for (&x, &v) in xs.iter().zip(vs.iter()) {
            h = (h ^ x as u32).wrapping_mul(16_777_619);
            h = (h ^ (v + 8) as u32).wrapping_mul(16_777_619);
        }
        h
    }
}

fn skip_ws(bytes: &[u8]) -> &[u8] {
    let n = bytes.iter().take_while(|c| c.is_ascii_whitespace()).count();
    &bytes[n..]
}
