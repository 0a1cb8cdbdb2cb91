"""Connects the Firebase Admin SDK to `synctable serve` on 127.0.0.1:PORT, as to the emulator."""
import json
import os
import sys

import firebase_admin
from firebase_admin import db


def connect(port):
    os.environ['FIREBASE_DATABASE_EMULATOR_HOST'] = f'127.0.0.1:{port}'
    firebase_admin.initialize_app(options={'databaseURL': f'http://127.0.0.1:{port}?ns=synctable'})
    return db


def emit(value):
    """One JSON line on standard output, at once (the test reads it while we run)."""
    sys.stdout.write(json.dumps(value, separators=(',', ':')) + '\n')
    sys.stdout.flush()
