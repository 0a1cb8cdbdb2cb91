// One Firebase JS SDK client of `synctable serve`, driven line by line for the Swift tests:
//   node client.js PORT SDK_PATH [LOG]
// With LOG, the SDK's own log (its connection and every frame) is written to that file: what a
// failed test shows of the client's side.
// Reads commands (JSON, one a line) on standard input and prints what happens (JSON, one a line).
//   {"do":"list","path":"players","child":"score","last":10}   follow a query with child events;
//                                                               prints {"list":[[key,value],…]} after each
//   {"do":"value","path":"a"}                                   prints {"value":v} on each onValue ({"cancelled":…} if revoked)
//   {"do":"get","path":"a"}                                     prints {"get":v} (or the error)
//   {"do":"set","path":"a","value":1}                           prints {"set":"ok"} (or the error)
//   {"do":"increment","path":"n","times":25}                    runTransaction n+1, `times` times, one after another
//   {"do":"onDisconnectRemove","path":"p"}                      prints {"onDisconnect":"ok"}
const [port, sdkPath, logPath] = [Number(process.argv[2]), process.argv[3], process.argv[4]];
const fb = require(sdkPath);
if (logPath) {
  const fs = require('fs');
  const log = fs.openSync(logPath, 'w');
  fb.enableLogging((message) => fs.writeSync(log, `${Date.now()} ${message}\n`));
}
const app = fb.initializeApp({ projectId: 'demo', databaseURL: `http://127.0.0.1:${port}?ns=demo` });
const db = fb.getDatabase(app);
fb.connectDatabaseEmulator(db, '127.0.0.1', port);
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');

function follow(cmd) {
  const list = [];
  const at = (key) => list.findIndex((e) => e[0] === key);
  const place = (key, value, prev) => {
    const i = prev === null ? 0 : at(prev) + 1;
    list.splice(i, 0, [key, value]);
  };
  let q = fb.ref(db, cmd.path);
  q = fb.query(q, fb.orderByChild(cmd.child), fb.limitToLast(cmd.last));
  const show = () => say({ list: list.map((e) => e.slice()) });
  fb.onChildAdded(q, (s, prev) => { place(s.key, s.val(), prev); show(); });
  fb.onChildRemoved(q, (s) => { list.splice(at(s.key), 1); show(); });
  fb.onChildChanged(q, (s) => { list[at(s.key)][1] = s.val(); show(); });
  fb.onChildMoved(q, (s, prev) => {
    const [entry] = list.splice(at(s.key), 1);
    place(entry[0], s.val(), prev);
    show();
  });
}

async function run(cmd) {
  try {
    switch (cmd.do) {
      case 'list': follow(cmd); break;
      case 'value': fb.onValue(fb.ref(db, cmd.path), (s) => say({ value: s.val() }), (e) => say({ cancelled: e.code || String(e) })); break;
      case 'get': say({ get: (await fb.get(fb.ref(db, cmd.path))).val() }); break;
      case 'set': await fb.set(fb.ref(db, cmd.path), cmd.value); say({ set: 'ok' }); break;
      case 'increment': {
        for (let i = 0; i < cmd.times; i++) {
          await fb.runTransaction(fb.ref(db, cmd.path), (n) => (n || 0) + 1);
        }
        say({ increment: 'ok' });
        break;
      }
      case 'onDisconnectRemove':
        await fb.onDisconnect(fb.ref(db, cmd.path)).remove();
        say({ onDisconnect: 'ok' });
        break;
      default: say({ error: 'unknown command ' + cmd.do });
    }
  } catch (e) {
    say({ error: String(e && e.message || e) });
  }
}

let pending = '';
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let nl;
  while ((nl = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    if (line.trim()) run(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));
