"""set, update, push and delete through the Admin SDK; prints what each returned, then the root."""
import sys

import sdk

db = sdk.connect(sys.argv[1])
root = db.reference('/')
db.reference('/players/alice/score').set(31)
db.reference('/players/bob').set({'score': 12, 'name': 'Bob', 'tags': ['x', 'y']})
db.reference('/players').update({'carol/score': 25, 'dave': {'score': 1, 'name': 'Dave'}})
pushed = db.reference('/messages').push({'text': 'hello', 'at': {'.sv': 'timestamp'}})
appended = db.reference('/queue').push('third')
db.reference('/players/erin').delete()
db.reference('/counter').set({'.sv': {'increment': 3}})
sdk.emit({'pushed': pushed.key, 'appended': appended.key, 'root': root.get()})
