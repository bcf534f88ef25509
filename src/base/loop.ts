// Cooperative yielding for long synchronous work: one event-loop turn lets timers (the index lock's
// refresh), signal handlers and native finalizers (tree-sitter trees) run.
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
