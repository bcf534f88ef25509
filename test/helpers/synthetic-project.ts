// A deterministic, realistic-looking TypeScript tree for tests that need a project big enough to
// take measurable time to index: modules of classes with documented methods, interfaces, and
// relative imports and calls between modules, plus a few markdown docs.

const DOMAINS = ["user", "order", "invoice", "payment", "session", "catalog", "report", "audit"] as const;

function pascal(s: string): string {
  return s[0]!.toUpperCase() + s.slice(1);
}

/** One module of roughly 3–4 KB: an interface, a repository class and a service class that calls a neighbour. */
function moduleSource(i: number, count: number): string {
  const domain = DOMAINS[i % DOMAINS.length]!;
  const name = `${pascal(domain)}${i}`;
  const dep = (i + 1) % count;
  const depDomain = DOMAINS[dep % DOMAINS.length]!;
  const depName = `${pascal(depDomain)}${dep}`;
  const lines = [
    `import { ${depName}Service } from "../${dep % 10}/${depDomain}-${dep}.js";`,
    `import type { ${depName}Record } from "../${dep % 10}/${depDomain}-${dep}.js";`,
    "",
    `/** A persisted ${domain} record (module ${i}). */`,
    `export interface ${name}Record {`,
    "  id: string;",
    "  createdAt: Date;",
    "  updatedAt: Date;",
    "  tags: string[];",
    `  linked?: ${depName}Record;`,
    "}",
    "",
    `/** Stores ${domain} records in memory, keyed by id. */`,
    `export class ${name}Repository {`,
    `  private readonly rows = new Map<string, ${name}Record>();`,
    "",
    "  /** Returns the record with this id, or undefined. */",
    `  find(id: string): ${name}Record | undefined {`,
    "    return this.rows.get(id);",
    "  }",
    "",
    "  /** Inserts or replaces a record and returns it. */",
    `  save(record: ${name}Record): ${name}Record {`,
    "    const now = new Date();",
    "    const stored = { ...record, updatedAt: now };",
    "    this.rows.set(record.id, stored);",
    "    return stored;",
    "  }",
    "",
    "  /** Every record carrying the given tag, oldest first. */",
    `  byTag(tag: string): ${name}Record[] {`,
    "    return [...this.rows.values()]",
    "      .filter((r) => r.tags.includes(tag))",
    "      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());",
    "  }",
    "",
    "  /** Removes a record; true when it existed. */",
    "  remove(id: string): boolean {",
    "    return this.rows.delete(id);",
    "  }",
    "}",
    "",
    `/** Business rules for ${domain} records. */`,
    `export class ${name}Service {`,
    `  constructor(private readonly repo: ${name}Repository, private readonly next: ${depName}Service | null = null) {}`,
    "",
    "  /** Creates a record with a fresh id and the given tags. */",
    `  create(tags: string[]): ${name}Record {`,
    `    const id = \`${domain}-\${Math.random().toString(36).slice(2)}\`;`,
    "    const now = new Date();",
    "    return this.repo.save({ id, createdAt: now, updatedAt: now, tags });",
    "  }",
    "",
    "  /** Adds a tag unless present; returns the updated record. */",
    `  tag(id: string, tag: string): ${name}Record {`,
    "    const found = this.repo.find(id);",
    `    if (!found) throw new Error(\`unknown ${domain} \${id}\`);`,
    "    if (found.tags.includes(tag)) return found;",
    "    return this.repo.save({ ...found, tags: [...found.tags, tag] });",
    "  }",
    "",
    "  /** Counts records per tag. */",
    "  histogram(tags: string[]): Record<string, number> {",
    "    const out: Record<string, number> = {};",
    "    for (const t of tags) out[t] = this.repo.byTag(t).length;",
    "    return out;",
    "  }",
    "",
    "  /** Forwards to the neighbouring service when one is wired. */",
    "  cascade(tags: string[]): number {",
    "    const mine = this.create(tags);",
    "    const theirs = this.next?.create(tags);",
    "    return mine.tags.length + (theirs ? theirs.tags.length : 0);",
    "  }",
    "}",
    "",
    `/** Builds a ${domain} service with its own repository. */`,
    `export function create${name}Service(next: ${depName}Service | null = null): ${name}Service {`,
    `  return new ${name}Service(new ${name}Repository(), next);`,
    "}",
    "",
    `export const ${domain.toUpperCase()}_${i}_LIMIT = ${100 + i};`,
    "",
  ];
  return lines.join("\n");
}

/** `count` TypeScript modules under src/<i % 10>/ plus one markdown doc per 50 modules. */
export function syntheticProject(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const domain = DOMAINS[i % DOMAINS.length]!;
    files[`src/${i % 10}/${domain}-${i}.ts`] = moduleSource(i, count);
  }
  for (let d = 0; d * 50 < count; d++) {
    files[`docs/part-${d}.md`] = [`# Part ${d}`, "", "Overview of the modules.", "", "## Usage", "", "Create a service, then tag records.", ""].join("\n");
  }
  return files;
}
