use std::fmt::{self, Display};

/// A point in the plane.
#[derive(Debug, Clone)]
pub struct Vec2 {
    pub x: f64,
    pub y: f64,
}

impl Vec2 {
    pub fn new(x: f64, y: f64) -> Self {
        Vec2 { x, y }
    }

    pub fn norm(&self) -> f64 {
        let sum = self.x * self.x;
        let sum = sum + self.y * self.y;
        sum.sqrt()
    }
}

impl Display for Vec2 {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

pub mod util {
    pub fn origin() -> super::Vec2 {
        super::Vec2::new(0.0, 0.0)
    }
}

pub fn far(p: &Vec2) -> bool {
    let q = Vec2::new(1.0, 1.0);
    println!("{}", q.x);
    p.norm() > 10.0
}

#[cfg(test)]
mod tests {
    use super::far;

    #[test]
    fn far_away() {
        assert!(!far(&super::Point::new(0.0, 0.0)));
    }
}
