#!/usr/bin/env bash
# The release workflow (.github/workflows/release.yml) against GitHub's workflow schema
# (check-jsonschema's copy, from PyPI), and what publishing needs: a tag trigger, scripts that exist,
# trusted publishing (the publish job alone may mint an OIDC token; no stored password or token),
# SHA256SUMS kept off PyPI. CTest runs it (label "unit"); 77 (skipped) without check-jsonschema.
# usage: tests/tools/check_release_workflow.sh SOURCE_DIR VENV
set -euo pipefail
src=$1
venv=$2
workflow=$src/.github/workflows/release.yml
[ -x "$venv/bin/check-jsonschema" ] || { echo "check-jsonschema not in $venv (scripts/setup.sh adds it)"; exit 77; }
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows "$workflow"
"$venv/bin/python" - "$workflow" "$src" <<'PY'
import os, re, sys
from ruamel.yaml import YAML
workflow, src = sys.argv[1], sys.argv[2]
w = YAML(typ="safe").load(open(workflow))
on = w.get("on") or w.get(True)
assert "tags" in on["push"], "the release runs on a tag"
assert w["permissions"] == {"contents": "read"}, "the workflow's default token only reads"
jobs = w["jobs"]
publish = jobs["publish"]
assert publish["permissions"] == {"id-token": "write"}, "trusted publishing: the publish job mints an OIDC token"
assert publish["environment"]["name"] == "pypi"
steps = publish["steps"]
pypi = [s for s in steps if str(s.get("uses", "")).startswith("pypa/gh-action-pypi-publish@")]
assert len(pypi) == 1, "published by PyPA's action"
assert "password" not in (pypi[0].get("with") or {}), "no stored token: trusted publishing"
for name, job in jobs.items():
    if name != "publish":
        assert "id-token" not in (job.get("permissions") or {}), name + " must not mint tokens"
text = open(workflow).read()
for script in set(re.findall(r"(?:\./)?((?:scripts|tests)/[\w./-]+\.(?:sh|py))", text)):
    assert os.access(os.path.join(src, script), os.X_OK), script + " is named by the workflow but is not an executable in the tree"
print("release workflow: schema ok, tag trigger, trusted publishing, scripts present")
PY
