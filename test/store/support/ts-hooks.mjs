// Module hooks that let a child `node` process run the store's TypeScript sources directly
// (Node 20 cannot strip types): `.js` imports from a `.ts` file resolve to the `.ts`
// sibling, and `.ts` files are transpiled on load with the project's own TypeScript. Tests
// that need a second process thus exercise the real src/store, without a prior build.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export async function resolve(specifier, context, nextResolve) {
  if (context.parentURL?.endsWith(".ts") && specifier.startsWith(".") && specifier.endsWith(".js")) {
    const url = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith(".ts")) return nextLoad(url, context);
  const fileName = fileURLToPath(url);
  const { outputText } = ts.transpileModule(await readFile(fileName, "utf8"), {
    fileName,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true, sourceMap: false },
  });
  return { format: "module", source: outputText, shortCircuit: true };
}
