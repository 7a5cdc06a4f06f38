//! Duel controller "lazy": watches the ball only when it is close, and moves every other tick.

/// The world the host wrote: one buffer, reused every tick (it grows when a world is longer).
static mut WORLD: Vec<u8> = Vec::new();

/// Hands the host a buffer of `len` bytes for this tick's world.
#[no_mangle]
pub extern "C" fn alloc(len: i32) -> i32 {
    // SAFETY: wasm32 is single-threaded, and the host calls `alloc` and `act` in turn.
    unsafe {
        WORLD.clear();
        WORLD.resize(len.max(0) as usize, 0);
        WORLD.as_mut_ptr() as i32
    }
}

/// Answers `{"move": "up" | "down" | "stay"}` for the world at `ptr` (`len` bytes of JSON).
#[no_mangle]
pub extern "C" fn act(ptr: i32, len: i32) -> i64 {
    // SAFETY: the host wrote `len` bytes at `ptr`, the buffer `alloc` handed out.
    let json = unsafe { core::slice::from_raw_parts(ptr as *const u8, len as usize) };
    let answer: &'static [u8] = match decide(&World::read(json)) {
        Move::Up => br#"{"move":"up"}"#,
        Move::Down => br#"{"move":"down"}"#,
        Move::Stay => br#"{"move":"stay"}"#,
    };
    ((answer.as_ptr() as i64) << 32) | answer.len() as i64
}

enum Move {
    Up,
    Down,
    Stay,
}

/// The numbers of the world this controller uses (the referee writes compact JSON with
/// integer coordinates; y grows downwards).
#[allow(dead_code)] // the two controllers share this reader; each uses the fields it needs
struct World {
    tick: i32,
    ball: [i32; 4],
    me: [i32; 2],
    height: i32,
    paddle: i32,
    ball_size: i32,
}

impl World {
    fn read(json: &[u8]) -> World {
        World {
            tick: number(json, "", "\"tick\":"),
            ball: [
                number(json, "\"ball\":", "\"x\":"),
                number(json, "\"ball\":", "\"y\":"),
                number(json, "\"ball\":", "\"vx\":"),
                number(json, "\"ball\":", "\"vy\":"),
            ],
            me: [number(json, "\"you\":", "\"x\":"), number(json, "\"you\":", "\"y\":")],
            height: number(json, "\"field\":", "\"height\":"),
            paddle: number(json, "\"field\":", "\"paddle_height\":"),
            ball_size: number(json, "\"field\":", "\"ball\":"),
        }
    }
}

/// The integer after `key`, looked for after `object` (0 when absent).
fn number(json: &[u8], object: &str, key: &str) -> i32 {
    let from = find(json, object.as_bytes(), 0).map_or(0, |at| at + object.len());
    let at = match find(json, key.as_bytes(), from) {
        Some(at) => at,
        None => return 0,
    };
    let digits = &json[at + key.len()..];
    let negative = digits.first() == Some(&b'-');
    let value = digits
        .iter()
        .skip(usize::from(negative))
        .take_while(|b| b.is_ascii_digit())
        .fold(0i32, |acc, b| acc.saturating_mul(10).saturating_add(i32::from(b - b'0')));
    if negative {
        -value
    } else {
        value
    }
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || from >= haystack.len() {
        return if needle.is_empty() { Some(from) } else { None };
    }
    haystack[from..].windows(needle.len()).position(|w| w == needle).map(|at| at + from)
}

/// Up, down or stay, to bring the paddle's centre within `slack` of `target`.
fn towards(world: &World, target: i32, slack: i32) -> Move {
    let centre = world.me[1] + world.paddle / 2;
    if target < centre - slack {
        Move::Up
    } else if target > centre + slack {
        Move::Down
    } else {
        Move::Stay
    }
}

fn decide(world: &World) -> Move {
    let [x, y, _, _] = world.ball;
    if world.tick % 2 == 1 || (x - world.me[0]).abs() > 160 {
        return Move::Stay;
    }
    towards(world, y + world.ball_size / 2, 20)
}
