/**
 * The sizes a reader takes in at one sitting: how many lines each class spans (from its
 * first line, decorators and doc comment excluded, to its closing brace), read with the
 * TypeScript compiler's parser so a class in a string or a comment does not count.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** Most lines one class may span. */
export const MAX_CLASS_LINES = 300;

/** Most lines the coordinator's entry (src/coordinator/coordinator.ts) may have. */
export const MAX_ENTRY_LINES = 200;

/** One class and the lines it spans. */
export interface ClassSize {
  readonly file: string;
  readonly name: string;
  readonly lines: number;
}

/** Every class declared in the `.ts` files under `dir`, file names relative to `base`. */
export function classSizesUnder(dir: string, base: string): ClassSize[] {
  return tsFilesUnder(dir).flatMap((file) => classSizesIn(ts.createSourceFile(relative(base, file), readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)));
}

/** The classes of one parsed file (parse it with `setParentNodes` true), in source order, nested ones included. */
export function classSizesIn(source: ts.SourceFile): ClassSize[] {
  const found: ClassSize[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file: source.fileName, name: node.name?.text ?? "(anonymous)", lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function tsFilesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...tsFilesUnder(path));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}
