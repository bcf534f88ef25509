// Bounded caches, the least recently used entry dropped first: lru-cache's LRUCache (this file is
// its one importer). A hit refreshes an entry; `maxSize` with `sizeCalculation` bounds the bytes an
// entry of any count may hold.
export { LRUCache } from "lru-cache";
