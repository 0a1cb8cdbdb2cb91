"""listen() on PATH; prints each event as a JSON line {"type", "path", "data"} until killed."""
import sys
import threading

import sdk

db = sdk.connect(sys.argv[1])
registration = db.reference(sys.argv[2]).listen(
    lambda event: sdk.emit({'type': event.event_type, 'path': event.path, 'data': event.data}))
threading.Event().wait()
