#!/usr/bin/env bash
# Installs the npm packages of the GitHub conformance check (GitHub's OpenAPI description, its
# recorded fixtures and their server, Ajv), exactly as package-lock.json pins them, when they are
# missing or older than the lock file. Run by .ci/run and by ctest (the github_openapi fixture).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "github conformance: node and npm are needed (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
  echo "github conformance: Node 20 or newer is needed (@octokit/fixtures-server); this is $(node --version)" >&2
  exit 1
fi
if cmp -s package-lock.json node_modules/.kb-installed-lock; then
  echo "github conformance: npm packages up to date"
  exit 0
fi
npm ci --no-audit --no-fund
cp package-lock.json node_modules/.kb-installed-lock
