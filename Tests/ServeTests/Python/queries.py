"""Runs the queries given as JSON lines on standard input with the Admin SDK; prints each result
as a JSON line: [[key, value], ...] in the SDK's order, or {"error": message}."""
import json
import sys

import sdk

db = sdk.connect(sys.argv[1])
for line in sys.stdin:
    spec = json.loads(line)
    ref = db.reference(spec['path'])
    order = spec['orderBy']
    if order == '$key':
        query = ref.order_by_key()
    elif order == '$value':
        query = ref.order_by_value()
    else:
        query = ref.order_by_child(order)
    if 'startAt' in spec:
        query = query.start_at(spec['startAt'])
    if 'endAt' in spec:
        query = query.end_at(spec['endAt'])
    if 'equalTo' in spec:
        query = query.equal_to(spec['equalTo'])
    if 'limitToFirst' in spec:
        query = query.limit_to_first(spec['limitToFirst'])
    if 'limitToLast' in spec:
        query = query.limit_to_last(spec['limitToLast'])
    try:
        result = query.get()
        sdk.emit([[k, v] for k, v in result.items()] if isinstance(result, dict) else result)
    except Exception as error:  # the test shows what the SDK reported
        sdk.emit({'error': f'{type(error).__name__}: {error}'})
