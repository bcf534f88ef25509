"use strict";
const fs = require("fs");
const { join, dirname } = require("path");

module.exports = { read: (p) => fs.readFileSync(join(p)) };
