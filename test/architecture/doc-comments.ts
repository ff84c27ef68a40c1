/**
 * Which exported declarations lack a doc comment, read with the TypeScript compiler's parser.
 * Checked: every exported function, class, interface, type alias, enum and `const` holding a
 * function (exported by a modifier, an export list or `export default`), and every public
 * method and accessor of an exported class. Not checked: re-exports
 * (`export { x } from "…"`, documented where they are declared), constructors, private,
 * protected and `#`-private members. Overloads (and a getter with its setter) are one group:
 * one comment for the group is enough.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";

/**
 * The files and directories (relative to the repository, searched recursively) whose exports
 * must carry a doc comment: the session core, the model, the store, the inbound pipeline and
 * its commands, and the wiring. A new directory of modules that hold rules is added here.
 */
export const DOC_COMMENT_SCOPE: readonly string[] = [
  "src/session",
  "src/rdf",
  "src/analysis",
  "src/store",
  "src/inbound",
  "src/commands",
  "src/coordinator",
  "src/host",
  "src/catch-up",
  "src/fleet",
  "src/planning/pddl-import",
  "src/planning/solver/heuristic",
];

/** One declaration without a doc comment: where it is (line 1-based) and its name (`Class.method` for members). */
export interface Undocumented {
  readonly file: string;
  readonly line: number;
  readonly name: string;
}

/** Every undocumented declaration in the `.ts` files under `paths` (relative to `base`), file names relative to `base`. */
export function undocumentedUnder(paths: readonly string[], base: string): Undocumented[] {
  const found: Undocumented[] = [];
  for (const path of paths) {
    for (const file of tsFilesAt(resolve(base, path))) {
      const source = ts.createSourceFile(relative(base, file), readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      found.push(...undocumentedIn(source));
    }
  }
  return found;
}

/** The undocumented declarations of one parsed file (parse it with `setParentNodes` true), in source order. */
export function undocumentedIn(source: ts.SourceFile): Undocumented[] {
  const exportedByList = namesExportedByList(source);
  const found: Undocumented[] = [];
  const report = (node: ts.Node, name: string): void => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push({ file: source.fileName, line: line + 1, name });
  };
  // Declarations that share a name (overloads; a function and a namespace) are one group.
  const groups = new Map<string, ts.Node[]>();
  const addToGroup = (name: string, node: ts.Node): void => {
    const group = groups.get(name);
    if (group) group.push(node);
    else groups.set(name, [node]);
  };
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      if (!isExported(statement, exportedByList, undefined)) continue;
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (!ts.isIdentifier(declaration.name) || !init) continue;
        if (!ts.isArrowFunction(init) && !ts.isFunctionExpression(init)) continue;
        if (!hasDocComment(declaration) && !hasDocComment(statement)) report(declaration, declaration.name.text);
      }
      continue;
    }
    if (
      !ts.isFunctionDeclaration(statement) &&
      !ts.isClassDeclaration(statement) &&
      !ts.isInterfaceDeclaration(statement) &&
      !ts.isTypeAliasDeclaration(statement) &&
      !ts.isEnumDeclaration(statement)
    ) {
      continue;
    }
    const name = statement.name?.text ?? "default";
    if (!isExported(statement, exportedByList, statement.name?.text)) continue;
    addToGroup(name, statement);
    if (ts.isClassDeclaration(statement)) {
      const members = new Map<string, ts.Node[]>();
      for (const member of statement.members) {
        const memberName = publicMemberName(member);
        if (memberName === undefined) continue;
        const key = `${isStatic(member) ? "static " : ""}${memberName}`;
        const group = members.get(key);
        if (group) group.push(member);
        else members.set(key, [member]);
      }
      for (const [key, group] of members) {
        if (!group.some(hasDocComment)) report(group[0]!, `${name}.${key.replace(/^static /, "")}`);
      }
    }
  }
  for (const [name, group] of groups) {
    // An interface merged with a class, or several interface blocks: one documented block is enough.
    if (!group.some(hasDocComment)) report(group[0]!, name);
  }
  return found.sort((a, b) => a.line - b.line);
}

/** True when the node carries a `/** … *\/` comment with some text in it (a tag counts). */
function hasDocComment(node: ts.Node): boolean {
  return ts
    .getJSDocCommentsAndTags(node)
    .filter(ts.isJSDoc)
    .some((doc) => doc.getText().replace(/^\/\*\*|\*\/$/g, "").replace(/[\s*]/g, "").length > 0);
}

function isExported(node: ts.Node, exportedByList: ReadonlySet<string>, name: string | undefined): boolean {
  const modifiers = ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined;
  if (modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return true;
  if (ts.isVariableStatement(node)) {
    return node.declarationList.declarations.some((d) => ts.isIdentifier(d.name) && exportedByList.has(d.name.text));
  }
  return name !== undefined && exportedByList.has(name);
}

/**
 * Local names exported other than by a modifier: by a list without a module (`export { a, b as c }`,
 * `export type { T }`) or as the default (`export default a`). `export … from` re-exports are not.
 */
function namesExportedByList(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isExportAssignment(statement) && ts.isIdentifier(statement.expression)) names.add(statement.expression.text);
    if (!ts.isExportDeclaration(statement) || statement.moduleSpecifier) continue;
    const clause = statement.exportClause;
    if (!clause || !ts.isNamedExports(clause)) continue;
    for (const element of clause.elements) names.add((element.propertyName ?? element.name).text);
  }
  return names;
}

/** The name of a method or accessor anyone may call, or undefined (constructors, fields, private members). */
function publicMemberName(member: ts.ClassElement): string | undefined {
  if (!ts.isMethodDeclaration(member) && !ts.isGetAccessorDeclaration(member) && !ts.isSetAccessorDeclaration(member)) {
    return undefined;
  }
  if (ts.isPrivateIdentifier(member.name)) return undefined;
  const modifiers = ts.getModifiers(member) ?? [];
  if (modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword)) {
    return undefined;
  }
  return ts.isIdentifier(member.name) || ts.isStringLiteral(member.name) ? member.name.text : member.name.getText();
}

function isStatic(member: ts.ClassElement): boolean {
  return (ts.getModifiers(member as ts.HasModifiers) ?? []).some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
}

function tsFilesAt(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  const found: string[] = [];
  for (const name of readdirSync(path).sort()) {
    const child = join(path, name);
    if (statSync(child).isDirectory()) found.push(...tsFilesAt(child));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) found.push(child);
  }
  return found;
}
