/**
 * Every export of the checked modules (DOC_COMMENT_SCOPE) says in a doc comment what it is
 * for and the rule it keeps: the reader meets the comment before the code.
 */
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { DOC_COMMENT_SCOPE, undocumentedIn, undocumentedUnder } from "./doc-comments.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

describe("doc comments on exported declarations", () => {
  it("are present in every checked module", () => {
    const missing = undocumentedUnder(DOC_COMMENT_SCOPE, repo).map(({ file, line, name }) => `${file}:${line} ${name}`);
    expect(missing).toEqual([]);
  });
});

describe("undocumentedIn", () => {
  const names = (text: string): string[] =>
    undocumentedIn(ts.createSourceFile("sample.ts", text, ts.ScriptTarget.Latest, true)).map((u) => `${u.line} ${u.name}`);

  it("finds the undocumented export and not the documented one", () => {
    const text = [
      "/** Doubles a count. */",
      "export function documented(n: number): number { return 2 * n; }",
      "export function undocumented(n: number): number { return n; }",
    ].join("\n");
    expect(names(text)).toEqual(["3 undocumented"]);
  });

  it("checks every kind of exported declaration, and const functions but not other consts", () => {
    const text = [
      "export class C {}",
      "export interface I {}",
      "export type T = number;",
      "export enum E { A }",
      "export const arrow = (): void => undefined;",
      "export const expression = function (): void {};",
      "export const LIMIT = 3;",
      "/** Says hello. */",
      "export const documentedArrow = (): string => 'hello';",
      "export default function (): void {}",
    ].join("\n");
    expect(names(text)).toEqual(["1 C", "2 I", "3 T", "4 E", "5 arrow", "6 expression", "10 default"]);
  });

  it("ignores what is not exported, and re-exports", () => {
    const text = [
      "function helper(): void {}",
      "interface Local {}",
      'export { parse } from "./parse.js";',
      'export type { Outcome } from "./parse.js";',
      'export * from "./merge.js";',
    ].join("\n");
    expect(names(text)).toEqual([]);
  });

  it("checks a local declaration exported by a list", () => {
    const text = [
      "function listed(): void {}",
      "/** Documented. */",
      "function kept(): void {}",
      "interface Shape {}",
      "const handler = (): void => undefined;",
      "export { listed as renamed, kept };",
      "export type { Shape };",
      "export default handler;",
    ].join("\n");
    expect(names(text)).toEqual(["1 listed", "4 Shape", "5 handler"]);
  });

  it("checks public methods and accessors of exported classes, not constructors or private members", () => {
    const text = [
      "/** A counter. */",
      "export class Counter {",
      "  #count = 0;",
      "  constructor(private readonly step: number) {}",
      "  /** Adds one step. */",
      "  add(): void { this.#count += this.step; }",
      "  reset(): void { this.#count = 0; }",
      "  get value(): number { return this.#count; }",
      "  static zero(): Counter { return new Counter(0); }",
      "  private hidden(): void {}",
      "  protected inherited(): void {}",
      "  #secret(): void {}",
      "}",
      "class Internal { open(): void {} }",
    ].join("\n");
    expect(names(text)).toEqual(["7 Counter.reset", "8 Counter.value", "9 Counter.zero"]);
  });

  it("takes one comment for a group of overloads, or for a getter and its setter", () => {
    const text = [
      "/** Parses text or bytes. */",
      "export function parse(text: string): number;",
      "export function parse(bytes: Uint8Array): number;",
      "export function parse(input: string | Uint8Array): number { return input.length; }",
      "export function bare(a: string): void;",
      "export function bare(a: number): void;",
      "export function bare(_a: unknown): void {}",
      "/** A box. */",
      "export class Box {",
      "  /** The boxed value; setting it replaces it. */",
      "  get value(): number { return 1; }",
      "  set value(_v: number) {}",
      "  open(a: string): void;",
      "  /** Opens with a name or a number. */",
      "  open(a: number): void;",
      "  open(_a: unknown): void {}",
      "}",
    ].join("\n");
    expect(names(text)).toEqual(["5 bare"]);
  });

  it("does not count an empty doc comment, nor a plain block or line comment", () => {
    const text = [
      "/** */",
      "export function empty(): void {}",
      "/* Not a doc comment. */",
      "export function block(): void {}",
      "// Nor this.",
      "export function line(): void {}",
      "/** @deprecated */",
      "export function tagged(): void {}",
    ].join("\n");
    expect(names(text)).toEqual(["2 empty", "4 block", "6 line"]);
  });
});
