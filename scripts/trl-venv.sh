#!/usr/bin/env bash
# A Python venv with trl 1.13.0 (and the torch, transformers, accelerate it pulls) for `npm run test:trl`,
# installed through pip as this machine configures it (a local index, /opt/wheels). Reused while it holds
# that release; prints the venv's python, and nothing else, on stdout.
#   TRL_PYTHON=$(scripts/trl-venv.sh) npm run test:trl
set -euo pipefail

TRL_VERSION=1.13.0
# Outside the clone: CI starts from a fresh clone and `npm ci` empties node_modules, so a venv kept there
# would be installed anew on every run.
dir=${TRL_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/tutor-reward/trl-$TRL_VERSION}
py=$dir/bin/python

# .complete is written last: a venv whose install was cut short is made again, not reused.
# The check reads package metadata only: importing torch would cost seconds on every run.
if [ -f "$dir/.complete" ] && "$py" -c "
import importlib.metadata as m
assert m.version('trl') == '$TRL_VERSION'
for dist in ('torch', 'transformers', 'accelerate', 'datasets', 'tokenizers'):
    m.version(dist)" >/dev/null 2>&1; then
  echo "$py"
  exit 0
fi

mkdir -p "$(dirname "$dir")"
python3 -m venv --clear "$dir"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# --retries 0: the index here is local; an unreachable default index must not cost minutes of retries.
if ! "$py" -m pip install --quiet --retries 0 --disable-pip-version-check "trl==$TRL_VERSION" >"$log" 2>&1; then
  cat "$log" >&2
  echo "trl-venv: pip could not install trl==$TRL_VERSION into $dir" >&2
  exit 1
fi
"$py" -c "import torch, transformers, trl; assert trl.__version__ == '$TRL_VERSION', trl.__version__" >&2
touch "$dir/.complete"
echo "$py"
