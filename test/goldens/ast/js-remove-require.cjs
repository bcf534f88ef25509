"use strict";
const { join } = require("path");

module.exports = { read: (p) => fs.readFileSync(join(p)) };
