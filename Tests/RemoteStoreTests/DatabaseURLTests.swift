// Database URLs: the forms the Firebase tools take, the emulator variable, request URLs, errors.
import JSONTree
@testable import RemoteStore
import Testing

@Suite struct DatabaseURLTests {
    private func parse(_ text: String, emulator: String? = nil) throws(RemoteError) -> DatabaseURL {
        try DatabaseURL(parsing: text, environment: emulator.map { [DatabaseURL.emulatorVariable: $0] } ?? [:])
    }

    @Test func localServerURLs() throws {
        let url = try parse("http://127.0.0.1:9000/players")
        #expect(url.scheme == "http" && url.host == "127.0.0.1" && url.port == 9000 && url.namespace == nil)
        #expect(url.location == Path(keys: ["players"]))
        #expect(url.display == "http://127.0.0.1:9000/players")
        #expect(url.requestURL(for: url.location) == "http://127.0.0.1:9000/players.json")
        // `.json` at the end, a trailing slash, repeated slashes and the case of the scheme change nothing.
        for same in ["http://127.0.0.1:9000/players.json", "HTTP://127.0.0.1:9000//players/", "http://127.0.0.1:9000/players.json?"] {
            #expect(try parse(same) == url, "\(same)")
        }
        let root = try parse("http://localhost:9000")
        #expect(root.location == .root && root.requestURL(for: .root) == "http://localhost:9000/.json")
        let v6 = try parse("http://[::1]:9000/a/b.json?ns=demo")
        #expect(v6.host == "[::1]" && v6.port == 9000 && v6.namespace == "demo")
        #expect(v6.requestURL(for: v6.location) == "http://[::1]:9000/a/b.json?ns=demo")
        #expect(v6.display == "http://[::1]:9000/a/b?ns=demo")
    }

    @Test func productionURLs() throws {
        let classic = try parse("https://my-app.firebaseio.com/players/top")
        #expect(classic.scheme == "https" && classic.host == "my-app.firebaseio.com" && classic.port == nil)
        #expect(classic.namespace == nil && classic.location == Path(keys: ["players", "top"]))
        #expect(classic.requestURL(for: classic.location) == "https://my-app.firebaseio.com/players/top.json")
        let regional = try parse("https://my-app-default-rtdb.europe-west1.firebasedatabase.app/players")
        #expect(regional.host == "my-app-default-rtdb.europe-west1.firebasedatabase.app" && regional.namespace == nil)
        #expect(regional.requestURL(for: Path(keys: ["players", "bob"])) == "https://my-app-default-rtdb.europe-west1.firebasedatabase.app/players/bob.json")
    }

    @Test func theEmulatorVariableRedirectsHTTPSURLsAsTheAdminSDKsDo() throws {
        let classic = try parse("https://my-app.firebaseio.com/players", emulator: "127.0.0.1:9000")
        #expect(classic.requestURL(for: classic.location) == "http://127.0.0.1:9000/players.json?ns=my-app")
        #expect(classic.display == "http://127.0.0.1:9000/players?ns=my-app")
        let regional = try parse("https://my-db.europe-west1.firebasedatabase.app/a", emulator: "localhost:9001")
        #expect(regional.requestURL(for: regional.location) == "http://localhost:9001/a.json?ns=my-db")
        // An http URL is an emulator's already: as given.
        let local = try parse("http://127.0.0.1:7000/a?ns=other", emulator: "127.0.0.1:9000")
        #expect(local.requestURL(for: local.location) == "http://127.0.0.1:7000/a.json?ns=other")
        #expect(throws: RemoteError.self) { try parse("https://x.firebaseio.com/a", emulator: "http://127.0.0.1:9000") }
        // The process's environment is the default.
        #expect(try DatabaseURL(parsing: "https://x.firebaseio.com/a").host == (processEnvironment()[DatabaseURL.emulatorVariable] == nil ? "x.firebaseio.com" : "127.0.0.1"))
    }

    @Test func keysArePercentDecodedAndEncoded() throws {
        let url = try parse("http://h:1/caf%C3%A9/a%20b/%E2%9C%93.json")
        #expect(url.location == Path(keys: ["café", "a b", "✓"]))
        #expect(url.requestURL(for: url.location) == "http://h:1/caf%C3%A9/a%20b/%E2%9C%93.json")
        #expect(url.requestURL(for: Path(keys: ["a+b", "~x"]), parameters: [("orderBy", "\"$key\""), ("limitToLast", "5"), ("x", "a&b=c")])
            == "http://h:1/a%2Bb/~x.json?orderBy=%22%24key%22&limitToLast=5&x=a%26b%3Dc")
    }

    @Test func badURLsSayWhatIsWrong() {
        let cases: [(String, String)] = [
            ("ftp://h/a", "must start with http:// or https://"),
            ("players.json", "must start with http:// or https://"),
            ("http:///a", "has no host"),
            ("http://h:0/a", "port '0'"),
            ("http://h:99999/a", "port '99999'"),
            ("http://h:x/a", "port 'x'"),
            ("http://h/a%2Fb", "holds '/'"),
            ("http://h/a%zz", "malformed percent escape"),
            ("http://h/a.b/c", "holds '.'"),
            ("http://h/a$b", "holds '$'"),
            ("http://h/a[0]", "holds '['"),
            ("http://h/a#frag", "fragment"),
            ("http://h/a%0Ab", "control character"),
            ("http://h/a?orderBy=x", "'orderBy' is not supported"),
            ("http://h/a?ns=", "ns= needs a database name"),
            ("http://my-app.firebaseio.com/a", "must be https"),
            ("http://h/" + Array(repeating: "k", count: 33).joined(separator: "/"), "33 levels deep"),
            ("http://[::1/a", "no closing ']'"),
            ("http://h h/a", "host contains ' '"),
        ]
        for (text, expected) in cases {
            do {
                _ = try parse(text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.kind == .invalidURL)
                #expect(error.message.contains(expected), "\(text): \(error.message)")
            }
        }
    }

    @Test func tokensInTheURLAreRefusedWithoutBeingRepeated() {
        for text in ["https://x.firebaseio.com/a?auth=SECRET123", "http://h/a?access_token=SECRET123",
                     "http://user:SECRET123@h/a", "http://SECRET123@h/a"] {
            do {
                _ = try parse(text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(!error.message.contains("SECRET123"), "\(error.message)")
                #expect(error.message.contains("--auth-token"))
            }
        }
    }

    @Test func urlsAreToldFromFileNames() {
        #expect(DatabaseURL.looksLikeURL("http://127.0.0.1:9000/a"))
        #expect(DatabaseURL.looksLikeURL("HTTPS://x.firebaseio.com"))
        #expect(!DatabaseURL.looksLikeURL("data.json"))
        #expect(!DatabaseURL.looksLikeURL("http:/x"))
        #expect(!DatabaseURL.looksLikeURL("-"))
    }
}
