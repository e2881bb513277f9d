// Tokenizes .sqn texts with the real TextMate engine VS Code uses (vscode-textmate with the
// Oniguruma regex library compiled to WebAssembly) and checks the scope of every expected token.
//
// Usage: node test/tokenize.mjs EXPECTATIONS.json
//
// EXPECTATIONS.json (written by the Rust test `lsp/tests/textmate.rs` from the parser's syntax
// tree and the grammar's keyword list) is
//   { "files": [ { "name", "text", "expect": [ { "line", "start", "end", "scopes", "what" } ] } ] }
// with 0-based lines and UTF-16 columns. A token is right when every piece of the tokenized line
// inside [start, end) carries a scope starting with one of `scopes`. Exits 1 on any mismatch,
// and when there is nothing to check.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const wasm = readFileSync(join(dirname(require.resolve("vscode-oniguruma")), "onig.wasm"));
await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));

const grammarPath = join(here, "..", "syntaxes", "sqn.tmLanguage.json");
const registry = new vsctm.Registry({
  onigLib: Promise.resolve({
    createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
    createOnigString: (s) => new oniguruma.OnigString(s),
  }),
  loadGrammar: async (scopeName) =>
    scopeName === "source.sqn"
      ? vsctm.parseRawGrammar(readFileSync(grammarPath, "utf8"), grammarPath)
      : null,
});
const grammar = await registry.loadGrammar("source.sqn");

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const failures = [];
const checked = {};
let total = 0;

for (const file of input.files) {
  const lines = file.text.split("\n");
  const tokens = [];
  let stack = vsctm.INITIAL;
  for (const line of lines) {
    const result = grammar.tokenizeLine(line.replace(/\r$/, ""), stack);
    tokens.push(result.tokens);
    stack = result.ruleStack;
  }
  for (const e of file.expect) {
    total += 1;
    checked[e.what] = (checked[e.what] || 0) + 1;
    const pieces = (tokens[e.line] || []).filter((t) => t.startIndex < e.end && t.endIndex > e.start);
    const text = (lines[e.line] || "").slice(e.start, e.end);
    const wrong = pieces.filter((t) => !t.scopes.some((s) => e.scopes.some((p) => s.startsWith(p))));
    if (pieces.length === 0 || wrong.length > 0) {
      const got = (wrong[0] || { scopes: ["(no token)"] }).scopes.slice(1).join(" ");
      failures.push(`${file.name}:${e.line + 1}:${e.start + 1}: ${e.what} \`${text}\` wants ${e.scopes.join(" or ")}, got ${got || "no scope"}`);
    }
  }
}

const summary = Object.entries(checked)
  .sort()
  .map(([what, n]) => `${n} ${what}`)
  .join(", ");
console.log(`checked ${total} tokens in ${input.files.length} files: ${summary}`);
if (total === 0) {
  console.error("nothing was checked");
  process.exit(1);
}
if (failures.length > 0) {
  console.error(`${failures.length} tokens have the wrong scope:`);
  for (const f of failures.slice(0, 60)) console.error("  " + f);
  process.exit(1);
}
