use std::fmt::{self, Display};

/// A point in the plane.
#[derive(Debug, Clone)]
pub struct Point {
    pub px: f64,
    pub y: f64,
}

impl Point {
    pub fn new(x: f64, y: f64) -> Self {
        Point { px: x, y }
    }

    pub fn norm(&self) -> f64 {
        let sum = self.px * self.px;
        let sum = sum + self.y * self.y;
        sum.sqrt()
    }
}

impl Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "({}, {})", self.px, self.y)
    }
}

pub mod util {
    pub fn origin() -> super::Point {
        super::Point::new(0.0, 0.0)
    }
}

pub fn far(p: &Point) -> bool {
    let q = Point::new(1.0, 1.0);
    println!("{}", q.px);
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
