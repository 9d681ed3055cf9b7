#!/usr/bin/env bash
# Installs action-validator (@action-validator/cli, which checks a workflow or action.yml against
# GitHub's published JSON schemas) exactly as package-lock.json pins it, when it is missing or
# older than the lock file. Run by .ci/run and by ctest (the workflow_validator fixture).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "workflow check: node and npm are needed (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
if cmp -s package-lock.json node_modules/.kb-installed-lock; then
  echo "workflow check: action-validator up to date"
  exit 0
fi
npm ci --no-audit --no-fund
cp package-lock.json node_modules/.kb-installed-lock
