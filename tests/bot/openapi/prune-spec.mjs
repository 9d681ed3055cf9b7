// @octokit/openapi ships GitHub's description ten times over (api.github.com, GHEC, three GHES
// releases, each also dereferenced: about 440 MB). kernelbot talks to api.github.com, so after
// `npm ci` only generated/api.github.com.json (13 MB) is kept; the download itself is 28 MB.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));  // import.meta.dirname needs Node 20.11

const dir = join(here, "node_modules/@octokit/openapi/generated");
for (const name of readdirSync(dir))
  if (name.endsWith(".json") && name !== "api.github.com.json") rmSync(join(dir, name));
