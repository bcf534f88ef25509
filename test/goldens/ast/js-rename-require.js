const nodePath = require("path");

function resolveAll(items) {
  var out = [];
  for (var i = 0; i < items.length; i++) {
    var item = items[i];
    out.push(nodePath.join("/", item));
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
