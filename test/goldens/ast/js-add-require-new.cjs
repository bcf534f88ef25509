"use strict";
const fs = require("fs");
const { join } = require("path");
const os = require("os");

module.exports = { read: (p) => fs.readFileSync(join(p)) };
