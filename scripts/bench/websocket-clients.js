// Clients of `synctable serve`'s WebSocket protocol for `make bench` (the `websocket` group):
//   node websocket-clients.js SDK_PATH          (NODE_PATH=/usr/share/nodejs, for faye-websocket)
// Reads commands (JSON, one a line) on standard input; prints what happened (JSON, one a line).
// Times are milliseconds of the monotonic clock (process.hrtime: CLOCK_MONOTONIC, the clock the
// bench reads), so the bench compares them with the moment it edited the file.
//   {"do":"raw","port":P,"count":N,"path":"/n"}   N protocol clients each listen to path;
//                                                 prints {"ready":N} once the server acknowledged every listen
//   {"do":"sdk","port":P,"count":N,"path":"n"}    N SDK apps (a connection each) follow path with onValue;
//                                                 prints {"ready":N} after every first value
//   {"do":"await","value":V,"seconds":S}          prints {"raw":[ms…],"sdk":[ms…]}: when each client first
//                                                 saw the number V at its path (or as its `v`)
//   {"do":"query","port":P,"path":"players","limit":L}  one SDK app: orderByKey, limitToFirst(L);
//                                                 prints {"value":ms,"children":k} at its first onValue
// It prints {"started":true} once the SDK is loaded; anything that goes wrong prints {"error":"…"}.
//
// The raw clients use faye-websocket, the SDK's own transport in Node, rather than framing of our
// own: the SDK clients beside them need Node anyway, and one process reports both on one clock.
const WebSocket = require('faye-websocket');
const fb = require(process.argv[2]);

const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const ms = () => Number(process.hrtime.bigint()) / 1e6;

// Each client: the first time it saw each value at its path.
const raw = [];
const sdk = [];
let apps = 0;
// Set when standard input ends: the clients' connections then close on purpose.
let closing = false;
// How many clients have seen each value, and the `await` waiting for one.
const counts = new Map();
let waiting = null;

// What identifies an edit: the value itself, or (for a larger value) its member `v`.
function mark(value) {
  if (typeof value === 'number') return value;
  if (value !== null && typeof value === 'object' && typeof value.v === 'number') return value.v;
  return undefined;
}

function saw(seen, value) {
  if (seen.has(value)) return;
  seen.set(value, ms());
  counts.set(value, (counts.get(value) || 0) + 1);
  if (waiting && waiting.value === value) settle();
}

function settle() {
  if ((counts.get(waiting.value) || 0) < raw.length + sdk.length) return;
  clearTimeout(waiting.timer);
  const value = waiting.value;
  waiting = null;
  say({ raw: raw.map((seen) => seen.get(value)), sdk: sdk.map((seen) => seen.get(value)) });
}

function openRaw(cmd) {
  let acknowledged = 0;
  for (let i = 0; i < cmd.count; i++) {
    const seen = new Map();
    raw.push(seen);
    const socket = new WebSocket.Client(`ws://127.0.0.1:${cmd.port}/.ws?v=5&ns=bench`);
    // A message over one frame arrives as its frame count, then the parts.
    let parts = 0, pending = '';
    socket.on('message', (event) => {
      const text = String(event.data);
      if (parts === 0 && /^\d+$/.test(text)) {
        parts = Number(text);
        return;
      }
      if (parts > 0) {
        pending += text;
        if (--parts > 0) return;
      }
      const message = JSON.parse(pending || text);
      pending = '';
      if (message.t === 'c' && message.d.t === 'h') {
        socket.send(JSON.stringify({ t: 'd', d: { r: 1, a: 'q', b: { p: cmd.path, h: '' } } }));
      } else if (message.t === 'd' && (message.d.a === 'd' || message.d.a === 'm') && mark(message.d.b.d) !== undefined) {
        saw(seen, mark(message.d.b.d));
      } else if (message.t === 'd' && message.d.r === 1) {
        if (message.d.b.s !== 'ok') say({ error: `listen refused: ${JSON.stringify(message.d.b)}` });
        else if (++acknowledged === cmd.count) say({ ready: cmd.count });
      }
    });
    socket.on('close', (event) => {
      if (!closing) say({ error: `client ${i} closed: ${event.code} ${event.reason}` });
    });
  }
}

function openSDK(cmd) {
  let first = 0;
  for (let i = 0; i < cmd.count; i++) {
    const seen = new Map();
    sdk.push(seen);
    const db = database(cmd.port);
    fb.onValue(fb.ref(db, cmd.path), (snapshot) => {
      saw(seen, mark(snapshot.val()));
      if (seen.size === 1 && ++first === cmd.count) say({ ready: cmd.count });
    }, (error) => say({ error: `onValue cancelled: ${error.code || error}` }));
  }
}

function database(port) {
  const app = fb.initializeApp({ projectId: 'bench', databaseURL: `http://127.0.0.1:${port}?ns=bench` }, `app${apps++}`);
  const db = fb.getDatabase(app);
  fb.connectDatabaseEmulator(db, '127.0.0.1', port);
  return db;
}

function awaitValue(cmd) {
  const timer = setTimeout(() => {
    const missing = raw.length + sdk.length - (counts.get(cmd.value) || 0);
    waiting = null;
    say({ error: `${missing} of ${raw.length + sdk.length} clients did not see ${cmd.value} within ${cmd.seconds} s` });
  }, cmd.seconds * 1000);
  waiting = { value: cmd.value, timer };
  settle();
}

function firstQueryValue(cmd) {
  const db = database(cmd.port);
  const query = fb.query(fb.ref(db, cmd.path), fb.orderByKey(), fb.limitToFirst(cmd.limit));
  const stop = fb.onValue(query, (snapshot) => {
    const at = ms();
    stop();
    say({ value: at, children: snapshot.size });
  }, (error) => say({ error: `query cancelled: ${error.code || error}` }));
}

let input = '';
process.stdin.on('data', (chunk) => {
  input += chunk;
  let nl;
  while ((nl = input.indexOf('\n')) >= 0) {
    const line = input.slice(0, nl);
    input = input.slice(nl + 1);
    if (!line.trim()) continue;
    const cmd = JSON.parse(line);
    switch (cmd.do) {
      case 'raw': openRaw(cmd); break;
      case 'sdk': openSDK(cmd); break;
      case 'await': awaitValue(cmd); break;
      case 'query': firstQueryValue(cmd); break;
      default: say({ error: `unknown command ${cmd.do}` });
    }
  }
});
say({ started: true });
process.stdin.on('end', () => {
  closing = true;
  process.exit(0);
});
