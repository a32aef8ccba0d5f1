//! A crate.
use std::fmt;

/// A point.
#[derive(Debug)]
pub struct Point {
    x: i32,
}

struct Unit;

pub(crate) enum Shape {
    Circle,
}

pub trait Area {
    fn area(&self) -> f64;
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "({})", self.x)
    }
}

impl<T> Wrapper<T> where T: Clone {
    pub const fn new(t: T) -> Self {
        Wrapper(t)
    }
}

const HELP: &str = r#"
fn not_a_function() {}
"#;

pub mod util {
    pub async fn fetch() {}
}

macro_rules! square {
    ($x:expr) => { $x * $x };
}

type Result<T> = std::result::Result<T, Error>;
