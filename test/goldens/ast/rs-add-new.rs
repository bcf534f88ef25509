//! Crate docs.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{self, Read};
use serde::Serialize;

fn main() {
    let _m: HashMap<u8, u8> = HashMap::new();
}
