const path = require("path");

function resolveAll(items) {
  var out = [];
  for (var i = 0; i < items.length; i++) {
    var entry = items[i];
    out.push(path.join("/", entry));
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
