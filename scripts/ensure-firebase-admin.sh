#!/usr/bin/env bash
# Installs the Firebase Admin SDK for Python (PyPI firebase-admin) into a virtual environment
# under .build/, for the conformance tests of `synctable serve` (Tests/ServeTests).
#   scripts/ensure-firebase-admin.sh    creates .build/firebase-venv once; prints nothing when ready
set -u
cd "$(dirname "$0")/.."
venv=.build/firebase-venv
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import firebase_admin.db' 2>/dev/null; then
  exit 0
fi
python=$(command -v python3 || true)
if [ -z "$python" ]; then
  echo "The serve tests need Python 3 (with venv) for the Firebase Admin SDK. Install it with:" >&2
  echo "  sudo apt-get install -y python3 python3-venv" >&2
  exit 1
fi
rm -rf "$venv"
if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
  echo "cannot create a Python virtual environment in $venv; install venv with:" >&2
  echo "  sudo apt-get install -y python3-venv" >&2
  exit 1
fi
echo "installing firebase-admin into $venv (for the serve tests)" >&2
if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'firebase-admin>=6,<8' >"$venv/pip.log" 2>&1; then
  echo "pip could not install firebase-admin from PyPI (offline, or PyPI unreachable); see $venv/pip.log." >&2
  echo "The serve tests need it; rerun 'make test' with network access, or install it yourself:" >&2
  echo "  $venv/bin/python -m pip install firebase-admin" >&2
  exit 1
fi
exit 0
