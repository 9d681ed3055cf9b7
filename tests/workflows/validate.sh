#!/usr/bin/env bash
# Validates every file given (workflows and action.yml) with action-validator; fails when one
# does not conform, and when the validator is missing: a check that cannot run must not pass.
# The validator takes one file per call, so each is checked on its own and all are reported.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
validator="$here/node_modules/.bin/action-validator"
if [ ! -x "$validator" ]; then
  echo "workflow check: $validator is missing (run tests/workflows/install.sh)" >&2
  exit 1
fi
if [ "$#" -eq 0 ]; then
  echo "usage: validate.sh FILE..." >&2
  exit 2
fi
failed=0
for file in "$@"; do
  if "$validator" "$file"; then
    echo "ok: $file"
  else
    echo "NOT VALID: $file" >&2
    failed=1
  fi
done
exit "$failed"
