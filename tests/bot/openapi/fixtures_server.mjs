// Serves GitHub's recorded exchanges (@octokit/fixtures, replayed by @octokit/fixtures-server)
// on 127.0.0.1 for tests/bot/github_fixtures_test.cpp. Prints {"url": ..., "pid": ...} on one
// line once listening; ends on SIGTERM, or after a minute in case its test died.
//   node fixtures_server.mjs scenario...   (names under @octokit/fixtures/scenarios/api.github.com)
//
// The recordings date from 2017: octokit then sent "Accept: application/vnd.github.v3+json",
// "Authorization: token ..." and a charset in Content-Type, and the replay matches those headers
// exactly. kernelbot sends what GitHub documents today (the OpenAPI check holds it to that), so
// those three expected headers are rewritten to today's form; everything else, the paths, query
// strings, bodies and every recorded answer, is replayed as GitHub sent it.
import express from "express";
import fixtures from "@octokit/fixtures";
import fixtureServerMiddleware from "@octokit/fixtures-server";

const scenarios = {};
for (const name of process.argv.slice(2)) {
  scenarios[name] = fixtures.get(`api.github.com/${name}`).map((exchange) => {
    const h = exchange.reqheaders || {};
    if (h.accept) h.accept = "application/vnd.github+json";
    if (h.authorization) h.authorization = h.authorization.replace(/^token /, "Bearer ");
    if (h["content-type"]) h["content-type"] = "application/json";
    return exchange;
  });
}

const app = express();
const server = app.listen(0, "127.0.0.1", () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  app.use(fixtureServerMiddleware({ fixturesUrl: url, logLevel: "silent", fixtures: scenarios, ttl: 60000 }));
  console.log(JSON.stringify({ url, pid: process.pid }));
});
process.on("SIGTERM", () => process.exit(0));
setTimeout(() => process.exit(0), 60000).unref();
