"""The Admin SDK acting as users (the databaseAuthVariableOverride option, sent as
auth_variable_override). Reads commands as JSON lines: {"as": UID or null, "do": "get"|"set"|"update",
"path": P, "value": V}; prints {"value": …} or {"error": message} for each."""
import json
import os
import sys

import firebase_admin
from firebase_admin import db

port = sys.argv[1]
os.environ['FIREBASE_DATABASE_EMULATOR_HOST'] = f'127.0.0.1:{port}'
url = f'http://127.0.0.1:{port}?ns=synctable'
apps = {}


def app_for(uid):
    """One app per identity: the option is the app's."""
    name = 'nobody' if uid is None else f'user-{uid}'
    if name not in apps:
        override = None if uid is None else {'uid': uid}
        apps[name] = firebase_admin.initialize_app(
            options={'databaseURL': url, 'databaseAuthVariableOverride': override}, name=name)
    return apps[name]


for line in sys.stdin:
    command = json.loads(line)
    ref = db.reference(command['path'], app=app_for(command['as']))
    try:
        if command['do'] == 'get':
            answer = {'value': ref.get()}
        elif command['do'] == 'set':
            ref.set(command['value'])
            answer = {'value': None}
        else:
            ref.update(command['value'])
            answer = {'value': None}
    except Exception as error:  # the SDK's error for a 401, reported to the test
        answer = {'error': str(error)}
    sys.stdout.write(json.dumps(answer, separators=(',', ':')) + '\n')
    sys.stdout.flush()
