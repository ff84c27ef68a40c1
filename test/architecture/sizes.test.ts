/**
 * Rooms of a size a reader takes in: no class of src/ spans more than MAX_CLASS_LINES lines,
 * and the entry, which only builds, wires and starts, stays under MAX_ENTRY_LINES.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { classSizesIn, classSizesUnder, MAX_CLASS_LINES, MAX_ENTRY_LINES } from "./sizes.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

describe("sizes", () => {
  it(`no class in src/ spans more than ${MAX_CLASS_LINES} lines`, () => {
    const sizes = classSizesUnder(`${repo}/src`, repo);
    expect(sizes.length).toBeGreaterThan(50);
    expect(sizes.filter((size) => size.lines > MAX_CLASS_LINES).map(({ file, name, lines }) => `${file} ${name}: ${lines} lines`)).toEqual([]);
  });

  it(`the entry (src/coordinator/coordinator.ts) is under ${MAX_ENTRY_LINES} lines`, () => {
    const lines = readFileSync(`${repo}/src/coordinator/coordinator.ts`, "utf8").trimEnd().split("\n").length;
    expect(lines).toBeLessThan(MAX_ENTRY_LINES);
  });
});

describe("classSizesIn", () => {
  const sizes = (text: string): string[] => classSizesIn(ts.createSourceFile("sample.ts", text, ts.ScriptTarget.Latest, true)).map((s) => `${s.name} ${s.lines}`);

  it("counts a class from its first line to its closing brace, nested classes too, and not a class in a string", () => {
    const text = ["/** A doc comment. */", "export class Outer {", "  inner = class Inner {", "    x = 1;", "  };", "}", 'const s = "class Fake { }";'].join("\n");
    expect(sizes(text)).toEqual(["Outer 5", "Inner 3"]);
  });
});
