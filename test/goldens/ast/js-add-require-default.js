const path = require("path");
const util = require("util");

function resolveAll(items) {
  var out = [];
  for (var i = 0; i < items.length; i++) {
    var item = items[i];
    out.push(path.join("/", item));
  }
  return out;
}

class Cache {
  #store = new Map();
  get(key) {
    return this.#store.get(key);
  }
}

module.exports = { resolveAll, Cache };
