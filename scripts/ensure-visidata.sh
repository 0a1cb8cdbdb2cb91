#!/usr/bin/env bash
# Installs VisiData (PyPI visidata) into a virtual environment under .build/, the peer of the
# frequency-table rows of `make bench` (Sources/synctable-bench/ViewsBench.swift).
#   scripts/ensure-visidata.sh    creates .build/visidata-venv once; prints nothing when ready
set -u
cd "$(dirname "$0")/.."
venv=.build/visidata-venv
if [ -x "$venv/bin/vd" ] && "$venv/bin/vd" --version >/dev/null 2>&1; then
  exit 0
fi
python=$(command -v python3 || true)
if [ -z "$python" ]; then
  echo "the VisiData bench rows need Python 3 (with venv): sudo apt-get install -y python3 python3-venv" >&2
  exit 1
fi
rm -rf "$venv"
if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
  echo "cannot create a Python virtual environment in $venv; install venv: sudo apt-get install -y python3-venv" >&2
  exit 1
fi
echo "installing visidata into $venv (the bench's peer for frequency tables)" >&2
if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'visidata>=3.4,<4' >"$venv/pip.log" 2>&1; then
  echo "pip could not install visidata from PyPI; see $venv/pip.log (the bench shows the row without it)" >&2
  exit 1
fi
exit 0
