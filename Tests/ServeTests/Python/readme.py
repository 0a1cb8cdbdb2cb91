"""The README's example, as written there (the port from the command line)."""
import os
import sys

import firebase_admin
from firebase_admin import db

import sdk

port = sys.argv[1]
os.environ['FIREBASE_DATABASE_EMULATOR_HOST'] = f'127.0.0.1:{port}'
firebase_admin.initialize_app(options={'databaseURL': f'http://127.0.0.1:{port}?ns=demo'})
top = db.reference('/players').order_by_child('score').limit_to_last(5).get()
sdk.emit([[key, value] for key, value in top.items()])
pushed = db.reference('/players').push({'name': 'Edsger Dijkstra', 'score': 9999})
sdk.emit(pushed.key)
