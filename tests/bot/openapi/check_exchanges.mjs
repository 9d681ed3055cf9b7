// Checks every exchange the fake GitHub logged during the test suites (tests/bot/exchange_log.h)
// against GitHub's OpenAPI description: kernelbot's requests and the fake's answers alike. Fails
// when any of them does not conform, when nothing was logged, or when an operation kernelbot
// uses was never exercised (a check that saw nothing would prove nothing).
//   node check_exchanges.mjs <directory of .jsonl files>
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GitHubDescription } from "./github_openapi.mjs";

// The operations kernelbot's GitHub client calls (bot/forge/github_client.cpp).
const USED = [
  "pulls/list",
  "pulls/create",
  "pulls/update",
  "issues/add-labels",
  "issues/create-comment",
  "issues/list-comments",
  "reactions/create-for-issue-comment",
  "reactions/delete-for-issue-comment",
  "repos/get-collaborator-permission-level",
  "issues/list-for-repo",
  "issues/create",
  "issues/update",
];

const dir = process.argv[2];
let files;
try {
  files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
} catch {
  files = [];
}
if (files.length === 0) {
  console.error(`no GitHub exchanges were logged under ${dir}: run the bot test suites first (ctest does)`);
  process.exit(1);
}

const description = new GitHubDescription();
const problems = [];
const seen = new Map();
let exchanges = 0;
for (const file of files.sort()) {
  for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
    if (!line.trim()) continue;
    const ex = JSON.parse(line);
    exchanges++;
    const op = description.operation(ex.method, ex.path);
    if (op) seen.set(op.operation.operationId, (seen.get(op.operation.operationId) || 0) + 1);
    for (const p of [...description.checkRequest(ex), ...description.checkResponse(ex)]) problems.push(`${ex.test}: ${p}`);
  }
}

const unique = [...new Set(problems)];
for (const p of unique) console.error(p);
const missing = USED.filter((id) => !seen.has(id));
for (const id of missing) console.error(`operation ${id} is used by kernelbot but no test exercised it`);
console.log(
  `checked ${exchanges} requests and responses from ${files.length} fakes against GitHub's OpenAPI description ` +
    `(@octokit/openapi ${description.version}, api.github.com); operations: ` +
    [...seen].map(([id, n]) => `${id} x${n}`).join(", "),
);
if (unique.length || missing.length) {
  const parts = [];
  if (unique.length) parts.push(`${unique.length} problems: the exchanges above do not conform`);
  if (missing.length) parts.push(`${missing.length} operations untested`);
  console.error(parts.join("; "));
  process.exit(1);
}
