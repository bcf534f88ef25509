//! Crate docs.
#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::io::{self, Read};

fn main() {
    let _m: HashMap<u8, u8> = HashMap::new();
}
