"""Increments PATH with transaction() COUNT times; prints how many commits it made."""
import sys

import sdk
from firebase_admin import db as dbmodule

db = sdk.connect(sys.argv[1])
ref = db.reference(sys.argv[2])
count = int(sys.argv[3])
done = 0
while done < count:
    try:
        ref.transaction(lambda current: (current or 0) + 1)
        done += 1
    except dbmodule.TransactionAbortedError:
        pass  # 25 conflicts in a row: try again; an aborted transaction wrote nothing
sdk.emit({'committed': done})
