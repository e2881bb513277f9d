// The squillion extension: highlighting comes from syntaxes/sqn.tmLanguage.json; everything else
// from the language server, `squillion lsp`, started here over standard input and output.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("squillion").get("server.path") || "squillion";
  const run = { command, args: ["lsp"], transport: TransportKind.stdio };
  client = new LanguageClient(
    "squillion",
    "squillion",
    { run, debug: run },
    { documentSelector: [{ scheme: "file", language: "sqn" }, { scheme: "untitled", language: "sqn" }] }
  );
  context.subscriptions.push(client);
  return client.start().catch((error) => {
    vscode.window.showErrorMessage(
      `squillion: could not start \`${command} lsp\` (${error.message}). ` +
        "Install squillion (`cargo install --path cli`) or set `squillion.server.path`."
    );
  });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
