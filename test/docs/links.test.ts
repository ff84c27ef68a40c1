/**
 * The documentation stays true to the repository: every relative link in README.md,
 * CHANGELOG.md and docs/*.md resolves to a file here (and an anchor to a heading of its
 * target, by GitHub's slug rules), no link leaves the repository, and every command the docs
 * name exists: `npm run X` / `npm X` scripts, `mfr-coordinator <sub>` / `node dist/src/cli.js
 * <sub>` subcommands, `dist/…/X.js` programs (their `.ts` source), and the room commands of
 * the README's table.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/commands/parse.js";
import { REPO_ROOT } from "../support/cli.js";

const ROOT = resolve(REPO_ROOT);

/** The documents checked, relative to the repository. */
function documents(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`);
  return ["README.md", "CHANGELOG.md", ...docs.sort()];
}

interface Link {
  target: string;
  line: number;
}

/** Lines outside fenced code blocks, with their numbers (1-based); fenced lines as "". */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split("\n").map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line;
  });
}

/** Inline links and images, outside code: `[text](target)` and `![alt](target)`. */
export function linksOf(text: string): Link[] {
  const links: Link[] = [];
  proseLines(text).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, (m) => " ".repeat(m.length)); // code spans are not links
    for (const m of line.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: m[1] as string, line: i + 1 });
    }
  });
  return links;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links keep their text
    .replace(/`/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/** The anchors of a Markdown file's headings, duplicates numbered as GitHub numbers them. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** What is wrong with the links of one document (empty when nothing is). */
export function brokenLinks(file: string, text: string, root = ROOT): string[] {
  const problems: string[] = [];
  const here = dirname(join(root, file));
  for (const { target, line } of linksOf(text)) {
    const where = `${file}:${line}: ${target}`;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      if (!/^(https?|mailto):/i.test(target)) problems.push(`${where}: only http(s) and mailto links may leave the repository`);
      continue;
    }
    if (target.startsWith("/")) {
      problems.push(`${where}: an absolute path does not resolve in the repository`);
      continue;
    }
    const [path = "", anchor] = target.split("#", 2) as [string, string | undefined];
    const full = path === "" ? join(root, file) : resolve(here, decodeURIComponent(path));
    const inside = relative(root, full);
    if (inside.startsWith("..") || inside.split(sep)[0] === "..") {
      problems.push(`${where}: points outside the repository`);
      continue;
    }
    if (!existsSync(full)) {
      problems.push(`${where}: no such file`);
      continue;
    }
    if (anchor !== undefined) {
      if (statSync(full).isDirectory() || !full.endsWith(".md")) {
        problems.push(`${where}: an anchor into a file that is not Markdown`);
      } else if (!anchorsOf(readFileSync(full, "utf8")).has(anchor)) {
        problems.push(`${where}: no heading with the anchor #${anchor} in ${relative(root, full)}`);
      }
    }
  }
  return problems;
}

/** The text inside code: fenced blocks and inline code spans, where commands are written. */
function codeOf(text: string): string[] {
  const pieces: string[] = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) pieces.push(line);
    else for (const m of line.matchAll(/`([^`]+)`/g)) pieces.push(m[1] as string);
  }
  return pieces;
}

/** npm's own commands the docs may name; `start` and `test` also need their script. */
const NPM_COMMANDS = new Set(["ci", "install", "install-scripts", "pack", "prune", "run", "start", "test"]);

const SCRIPTS = new Set(Object.keys((JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts));

/** The CLI's subcommands, as its dispatch names them (`case "export":`). */
const SUBCOMMANDS = new Set([...readFileSync(join(ROOT, "src", "cli.ts"), "utf8").matchAll(/case "([a-z][a-z-]*)":/g)].map((m) => m[1] as string));

/** What is wrong with the commands one document names. */
export function unknownCommands(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const code of codeOf(text)) {
    for (const m of code.matchAll(/\bnpm\s+(run\s+)?([a-z][a-z0-9:-]*)/g)) {
      const [, run, name] = m as unknown as [string, string | undefined, string];
      if (run !== undefined || name === "start" || name === "test") {
        if (!SCRIPTS.has(name)) problems.push(`${file}: \`${m[0]}\`: package.json has no script "${name}"`);
      } else if (!NPM_COMMANDS.has(name)) {
        problems.push(`${file}: \`${m[0]}\`: neither an npm command nor a script`);
      }
    }
    for (const m of code.matchAll(/(?:\bmfr-coordinator|\bnode\s+dist\/src\/cli\.js)\s+([a-z][a-z-]*)/g)) {
      const sub = m[1] as string;
      if (!SUBCOMMANDS.has(sub)) problems.push(`${file}: \`${m[0]}\`: the CLI has no subcommand "${sub}"`);
    }
    for (const m of code.matchAll(/\bdist\/((?:src|bench|examples)\/[\w./-]+)\.js\b/g)) {
      const source = `${m[1] as string}.ts`;
      if (!existsSync(join(ROOT, source))) problems.push(`${file}: \`${m[0]}\`: no ${source} to build it from`);
    }
  }
  return problems;
}

/** The first words of the commands in the README's "Commands" table (aliases included). */
export function roomCommandsOf(readme: string): string[] {
  const section = /^## Commands\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? "";
  const words: string[] = [];
  for (const row of section.split("\n").filter((l) => /^\|\s*`/.test(l))) {
    const first = row.split("|")[1] ?? "";
    for (const m of first.matchAll(/`([^`]+)`/g)) words.push((m[1] as string).trim().split(/\s+/)[0]!.toLowerCase());
  }
  return words;
}

describe("the documentation", () => {
  const files = documents();

  it("has the documents it links to", () => {
    expect(files).toContain("README.md");
    expect(files).toContain("CHANGELOG.md");
    for (const page of ["protocol", "agents", "operating", "configuration", "architecture", "development", "benchmarks"]) {
      expect(files).toContain(`docs/${page}.md`);
    }
  });

  it("links only to files in the repository, and anchors only to headings that exist", () => {
    const problems = files.flatMap((f) => brokenLinks(f, readFileSync(join(ROOT, f), "utf8")));
    expect(problems).toEqual([]);
    // Something was checked: the README links into docs/.
    expect(linksOf(readFileSync(join(ROOT, "README.md"), "utf8")).filter((l) => l.target.startsWith("docs/")).length).toBeGreaterThan(5);
  });

  it("names no path of the machine it was written on", () => {
    for (const f of files) expect(readFileSync(join(ROOT, f), "utf8"), f).not.toMatch(/(^|[\s(`])\/(work|home|tmp)\//m);
  });

  it("names only npm scripts, CLI subcommands and programs that exist", () => {
    expect(SUBCOMMANDS).toEqual(new Set(["help", "version", "check-config", "export", "import-pddl", "backup", "verify", "fleet", "demo", "solver", "start"]));
    const problems = files.flatMap((f) => unknownCommands(f, readFileSync(join(ROOT, f), "utf8")));
    expect(problems).toEqual([]);
  });

  it("lists in the README's commands table only room commands the coordinator knows, and all of them", () => {
    const listed = roomCommandsOf(readFileSync(join(ROOT, "README.md"), "utf8"));
    const known = new Set(COMMANDS.flatMap((c) => c.words));
    expect(listed.filter((w) => !known.has(w))).toEqual([]);
    expect([...known].filter((w) => !listed.includes(w))).toEqual([]);
  });

  it("keeps the quick start's two commands, the ones CI runs", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const quickStart = /^## Quick start\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? "";
    expect(codeOf(quickStart).filter((c) => c.startsWith("npm ")).slice(0, 2)).toEqual(["npm run demo", "npm test"]);
    expect(readFileSync(join(ROOT, ".ci", "run"), "utf8")).toMatch(/^npm test$/m);
  });
});

describe("the documentation checks themselves", () => {
  it("find a link to a missing file, a missing anchor, and a link out of the repository", () => {
    const text = ["[ok](docs/protocol.md#limits)", "[gone](docs/nowhere.md)", "[anchor](docs/protocol.md#no-such-heading)", "[out](../elsewhere/notes.md)", "`[in code](nowhere.md)`", "```", "[fenced](nowhere.md)", "```"].join("\n");
    const problems = brokenLinks("README.md", text);
    expect(problems).toHaveLength(3);
    expect(problems.join("\n")).toMatch(/nowhere\.md: no such file/);
    expect(problems.join("\n")).toMatch(/no heading with the anchor #no-such-heading/);
    expect(problems.join("\n")).toMatch(/points outside the repository/);
  });

  it("make GitHub's anchors", () => {
    expect(slug("Who is who, and who may do what")).toBe("who-is-who-and-who-may-do-what");
    expect(slug("Profile (`config/agents/coordinator.ttl`)")).toBe("profile-configagentscoordinatorttl");
    expect(slug("Across an absence: what the room said")).toBe("across-an-absence-what-the-room-said");
    expect([...anchorsOf("## A\n```\n# not a heading\n```\n## A\n")]).toEqual(["a", "a-1"]);
  });

  it("find a script, a subcommand, a program and a room command that do not exist", () => {
    const text = "`npm run no-such-script`, `npm frobnicate`, `mfr-coordinator launch`, `node dist/bench/nothing.js`";
    expect(unknownCommands("x.md", text)).toHaveLength(4);
    expect(roomCommandsOf("## Commands\n\n| command | what |\n|---|---|\n| `mfr-frob <x>` | … |\n\n## Next\n")).toEqual(["mfr-frob"]);
  });
});
