// The flows of @firebase/rules-unit-testing, made with the official JS SDK as that library makes
// them, against `synctable serve --accept-unverified-tokens` (the emulator's role):
//   node rules-unit-testing.js PORT SDK_PATH
// Prints one JSON line a step: {"step": NAME, "ok": true|false, "detail": …}, then {"done": true}.
const [port, sdkPath] = [Number(process.argv[2]), process.argv[3]];
const fb = require(sdkPath);
const ns = 'demo';
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');

// loadDatabaseRules: the rules file as written (comments included), with the owner credential.
async function loadRules(text) {
  const answer = await fetch(`http://127.0.0.1:${port}/.settings/rules.json?ns=${ns}`,
    { method: 'PUT', headers: { Authorization: 'Bearer owner' }, body: text });
  if (!answer.ok) throw new Error(`loading rules: ${answer.status} ${await answer.text()}`);
}

// A context as authenticatedContext / unauthenticatedContext / withSecurityRulesDisabled make it.
let apps = 0;
function context(mockUserToken) {
  const app = fb.initializeApp({ projectId: 'demo', databaseURL: `http://127.0.0.1:${port}?ns=${ns}` }, `ctx${apps++}`);
  const db = fb.getDatabase(app);
  fb.connectDatabaseEmulator(db, '127.0.0.1', port, mockUserToken === undefined ? {} : { mockUserToken });
  return db;
}
const authenticated = (uid, claims = {}) => context({ sub: uid, ...claims });
const unauthenticated = () => context(undefined);
const rulesDisabled = () => context('owner');

// assertSucceeds / assertFails as the library has them: a failure is PERMISSION_DENIED.
async function succeeds(name, promise) {
  try { await promise; say({ step: name, ok: true }); } catch (e) { say({ step: name, ok: false, detail: String(e && e.message || e) }); }
}
async function fails(name, promise) {
  try {
    await promise;
    say({ step: name, ok: false, detail: 'it succeeded' });
  } catch (e) {
    const text = String(e && (e.code || e.message) || e);
    say({ step: name, ok: /permission[_ ]denied/i.test(text), detail: text });
  }
}

const rules = `{
  // Each user reads and writes their own profile; a profile has a name and a numeric age.
  "rules": {
    "users": {
      "$uid": {
        ".read": "auth != null && auth.uid === $uid",
        ".write": "auth != null && auth.uid === $uid",
        ".validate": "newData.hasChildren(['name', 'age'])",
        "age": { ".validate": "newData.isNumber()" }
      }
    },
    "admin": { ".read": "auth.token.admin === true", ".write": "auth.token.admin === true" }
  }
}`;

(async () => {
  const { ref, set, get, onValue } = fb;
  try {
    await loadRules(rules);
    const alice = authenticated('alice');
    const bob = authenticated('bob');
    const anonymous = unauthenticated();
    const carol = authenticated('carol', { admin: true, email_verified: true });
    await succeeds('alice writes her profile', set(ref(alice, 'users/alice'), { name: 'Alice', age: 30 }));
    await succeeds('alice reads her profile', get(ref(alice, 'users/alice')));
    await fails('alice cannot write bob', set(ref(alice, 'users/bob'), { name: 'Mallory', age: 1 }));
    await fails('bob cannot read alice', get(ref(bob, 'users/alice')));
    await fails('an unauthenticated user cannot read', get(ref(anonymous, 'users/alice')));
    await fails('validate refuses a string age', set(ref(alice, 'users/alice'), { name: 'Alice', age: 'thirty' }));
    await fails('validate refuses a missing name', set(ref(alice, 'users/alice'), { age: 31 }));
    await succeeds('a custom claim is auth.token', set(ref(carol, 'admin/flag'), true));
    await fails('without the claim, denied', get(ref(alice, 'admin/flag')));
    const owner = rulesDisabled();
    await succeeds('withSecurityRulesDisabled writes anywhere', set(ref(owner, 'users/bob'), { anything: 'goes' }));
    await succeeds('withSecurityRulesDisabled reads anywhere', get(ref(owner, 'users')));

    // A listen that loses access when the rules change is cancelled.
    const cancelled = new Promise((resolve) => {
      onValue(ref(alice, 'users/alice'), () => {}, (error) => resolve(String(error && (error.code || error.message))));
    });
    await new Promise((r) => setTimeout(r, 200));
    await loadRules(rules.replace('auth.uid === $uid",\n        ".write"', 'false",\n        ".write"'));
    // (bob listens to nothing: his read is the server's to answer, not his cache's.)
    await fails('new rules judge the next request at once', get(ref(bob, 'users/bob')));
    const reason = await Promise.race([cancelled, new Promise((r) => setTimeout(() => r('not cancelled'), 10000))]);
    say({ step: 'a listen that lost access is cancelled', ok: /permission[_ ]denied/i.test(reason), detail: reason });

    // clearDatabase: the root set to null with rules disabled.
    await succeeds('clearDatabase', set(ref(owner, '/'), null));
    const after = await get(ref(owner, '/'));
    say({ step: 'the database is empty after clearDatabase', ok: !after.exists(), detail: after.val() });
  } catch (e) {
    say({ step: 'the flows ran', ok: false, detail: String(e && e.stack || e) });
  }
  say({ done: true });
  process.exit(0);
})();
