const path = require("path");

function resolveAll(items) {
  return items.map((item) => path.join("/", item));
}

class Cache {
  #store = new Map();
  get(key) {
    return this.#store.get(key);
  }
}

module.exports = { resolveAll, Cache };
