// The conformance check must be able to fail: a request or answer with a deliberately wrong field
// is fed to it and must be rejected with a message naming the field, and the same exchange
// without the mistake must pass. Run with `node --test` by ctest.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GitHubDescription } from "./github_openapi.mjs";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));  // import.meta.dirname needs Node 20.11

const d = new GitHubDescription();
const pull = JSON.parse(readFileSync(join(here, "../data/github/pull-request.json"), "utf8"));
const headers = { accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28", "content-type": "application/json" };
// What bot/forge/github_client.cpp sends to open a PR, and what GitHub answers.
const create = (body, extra = {}) => ({
  test: "selftest",
  method: "POST",
  path: "/repos/acme/widgets/pulls",
  query: "",
  request_headers: headers,
  request_body: JSON.stringify(body),
  status: 201,
  response_body: JSON.stringify(pull),
  ...extra,
});
const good = { title: "kernelbot: saxpy 1.55x faster", body: "b", head: "kernelbot/saxpy", base: "main", draft: false };

test("what the client sends to open a PR conforms", () => {
  assert.deepEqual(d.checkRequest(create(good)), []);
  assert.deepEqual(d.checkResponse(create(good)), []);
});

test("an unknown body field is rejected", () => {
  const problems = d.checkRequest(create({ ...good, draft_mode: true }));
  assert.equal(problems.length, 1);
  assert.match(problems[0], /pulls\/create.*additional properties 'draft_mode'/);
});

test("a body field of the wrong type is rejected", () => {
  assert.match(d.checkRequest(create({ ...good, draft: "yes" })).join("\n"), /\/draft must be boolean/);
});

test("a missing required body field is rejected", () => {
  const { head, ...rest } = good;
  assert.match(d.checkRequest(create(rest)).join("\n"), /must have required property 'head'/);
});

test("a path GitHub does not have is rejected", () => {
  assert.match(d.checkRequest(create(good, { path: "/repos/acme/widgets/pull" })).join("\n"), /no such operation/);
});

test("query parameters are checked for existence and type", () => {
  const list = (query) => ({ method: "GET", path: "/repos/acme/widgets/pulls", query, request_headers: headers });
  assert.deepEqual(d.checkRequest(list("state=open&per_page=100&head=acme%3Akernelbot%2Fsaxpy")), []);
  assert.match(d.checkRequest(list("state=opened")).join("\n"), /'state'.*must be equal to one of the allowed values/);
  assert.match(d.checkRequest(list("per_page=many")).join("\n"), /'per_page' is "many", not a integer/);
  assert.match(d.checkRequest(list("status=open")).join("\n"), /'status' is not documented/);
});

test("the Accept and API version headers are checked", () => {
  const old = { ...headers, accept: "application/vnd.github.v3+json" };
  assert.match(d.checkRequest(create(good, { request_headers: old })).join("\n"), /Accept is/);
  const { ["x-github-api-version"]: _, ...unversioned } = headers;
  assert.match(d.checkRequest(create(good, { request_headers: unversioned })).join("\n"), /X-GitHub-Api-Version/);
});

test("an answer missing a field GitHub always sends is rejected", () => {
  const { number, ...rest } = pull;
  assert.match(d.checkResponse(create(good, { response_body: JSON.stringify(rest) })).join("\n"), /required property 'number'/);
  const label = { name: "kernelbot" };  // the fake's labels once looked like this
  const labels = { method: "POST", path: "/repos/acme/widgets/issues/1/labels", status: 200, response_body: JSON.stringify([label]) };
  assert.match(d.checkResponse(labels).join("\n"), /required property/);
});

test("a validation error without documentation_url is not GitHub's", () => {
  const body = { message: "Validation Failed", errors: [{ resource: "PullRequest", code: "custom", message: "exists" }] };
  assert.match(d.checkResponse(create(good, { status: 422, response_body: JSON.stringify(body) })).join("\n"), /documentation_url/);
  body.documentation_url = "https://docs.github.com/rest/pulls/pulls#create-a-pull-request";
  assert.deepEqual(d.checkResponse(create(good, { status: 422, response_body: JSON.stringify(body) })), []);
});

test("check_exchanges.mjs fails the suite on one wrong field in a logged request", () => {
  const dir = mkdtempSync(join(tmpdir(), "kb-exchanges-"));
  const run = () => {
    try {
      return { code: 0, out: execFileSync("node", [join(here, "check_exchanges.mjs"), dir], { encoding: "utf8", stdio: "pipe" }) };
    } catch (e) {
      return { code: e.status, out: e.stderr };
    }
  };
  const log = (bad) => [create(bad ? { ...good, reviewers: ["octocat"] } : good)].map((e) => JSON.stringify(e)).join("\n");
  writeFileSync(join(dir, "one.jsonl"), log(true));
  const failed = run();
  assert.equal(failed.code, 1);
  assert.match(failed.out, /selftest: POST .*additional properties 'reviewers'/);
  writeFileSync(join(dir, "one.jsonl"), log(false));
  const clean = run();
  assert.equal(clean.code, 1);  // conforms, but the other operations kernelbot uses were not exercised
  assert.doesNotMatch(clean.out, /do not conform/);
  assert.match(clean.out, /operation pulls\/list is used by kernelbot but no test exercised it/);
});
