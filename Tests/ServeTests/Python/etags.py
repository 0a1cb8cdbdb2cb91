"""ETags through the Admin SDK: get(etag=True), get_if_changed, set_if_unchanged. Reads commands
as JSON lines on standard input (the test edits the file between them); prints each answer."""
import json
import sys

import sdk

db = sdk.connect(sys.argv[1])
ref = db.reference(sys.argv[2])
for line in sys.stdin:
    command = json.loads(line)
    if command['do'] == 'get':
        value, etag = ref.get(etag=True)
        sdk.emit({'value': value, 'etag': etag})
    elif command['do'] == 'if_changed':
        changed, value, etag = ref.get_if_changed(command['etag'])
        sdk.emit({'changed': changed, 'value': value, 'etag': etag})
    elif command['do'] == 'set_if_unchanged':
        ok, value, etag = ref.set_if_unchanged(command['etag'], command['value'])
        sdk.emit({'ok': ok, 'value': value, 'etag': etag})
