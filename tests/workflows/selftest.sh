#!/usr/bin/env bash
# The workflow check can fail: each file under broken/ breaks GitHub's schema in one way and must
# be rejected by validate.sh, and the files under good/ must pass (so a rejection is not just a
# validator that rejects everything). action-validator picks the schema by file name: files named
# action.yml are checked as actions, the others as workflows, so both schemas are exercised.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
status=0
if ! "$here/validate.sh" "$here/good/minimal-workflow.yml" "$here/good/action/action.yml" >/dev/null; then
  echo "selftest: a known-good file was rejected" >&2
  status=1
fi
count=0
for file in "$here"/broken/*.yml "$here"/broken/*/action.yml; do
  count=$((count + 1))
  if "$here/validate.sh" "$file" >/dev/null 2>&1; then
    echo "selftest: ${file#"$here"/} was accepted, but it is broken" >&2
    status=1
  else
    echo "rejected as it should be: ${file#"$here"/}"
  fi
done
if [ "$count" -eq 0 ]; then
  echo "selftest: no broken files found under $here/broken" >&2
  status=1
fi
exit "$status"
