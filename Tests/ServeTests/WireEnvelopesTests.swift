// The WebSocket protocol's envelopes: a client's message decoded once into what it asks (its
// arguments checked), the server's encoded as the client SDKs read them.
import JSONTree
import LiveQuery
@testable import Serve
import Testing

@Suite struct WireEnvelopesTests {
    @Test func aRequestIsDecodedWithItsArgumentsChecked() throws {
        guard case .request(let number, .success(.listen(let listen)))? = ClientMessage(
            decoding: #"{"t":"d","d":{"r":7,"a":"q","b":{"p":"/players/a","t":3,"q":{"i":".key","l":5,"vf":"l"},"h":""}}}"#)
        else { Issue.record("not a listen"); return }
        #expect(number == json("7"))
        #expect(listen.path == Path(keys: ["players", "a"]) && listen.wirePath == "/players/a" && listen.tag == 3)
        #expect(listen.query != nil && listen.wireQuery["l"] == json("5"))
        #expect(listen.ruleQuery["orderByKey"] == .bool(true) && listen.ruleQuery["limitToFirst"] == json("5"))
        // Without a tag, the location's whole value: no query, whatever `q` says.
        guard case .request(_, .success(.listen(let whole)))? = ClientMessage(
            decoding: #"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/","q":{"l":1}}}}"#)
        else { Issue.record("not a listen"); return }
        #expect(whole.path.keys.isEmpty && whole.tag == nil && whole.query == nil && whole.ruleQuery == .null)
    }

    /// A request whose arguments are wrong keeps its number (to be answered with the error); a
    /// message that is no envelope at all is nil (the connection is closed).
    @Test func badArgumentsAreTheRequestsError() {
        let cases: [(String, String)] = [
            (#"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/x","t":1e19,"h":""}}}"#, "a listen's tag must be a whole number"),
            (#"{"t":"d","d":{"r":1,"a":"n","b":{"p":"/x","t":0.5}}}"#, "a listen's tag must be a whole number"),
            (#"{"t":"d","d":{"r":1,"a":"p","b":{"p":7,"d":1}}}"#, "p must be a path string"),
            (#"{"t":"d","d":{"r":1,"a":"g","b":{"p":"/a/$b"}}}"#, "$"),
            (#"{"t":"d","d":{"r":1,"a":"zz","b":{}}}"#, "unknown action 'zz'"),
        ]
        for (text, words) in cases {
            guard case .request(let number, .failure(let error))? = ClientMessage(decoding: text) else {
                Issue.record("\(text): not refused")
                continue
            }
            #expect(number == json("1"))
            #expect(error.message.contains(words), "\(text): \(error.message)")
        }
        for text in ["[]", #"{"t":"d"}"#, #"{"t":1,"d":{}}"#, "{", #"{"t":"d","d":[1]}"#] {
            #expect(ClientMessage(decoding: text) == nil, "\(text)")
        }
        guard case .ping? = ClientMessage(decoding: #"{"t":"c","d":{"t":"p","d":{}}}"#) else {
            Issue.record("a ping")
            return
        }
        guard case .ignored? = ClientMessage(decoding: #"{"t":"d","d":{"r":2}}"#) else {
            Issue.record("a message without an action is ignored")
            return
        }
    }

    /// The server's messages, byte for byte as the SDKs' PersistentConnection reads them.
    @Test func serverMessagesAreEncodedAsTheSDKsReadThem() {
        let cases: [(ServerMessage, String)] = [
            (.hello(milliseconds: 5, host: "h:1", session: "s"), #"{"t":"c","d":{"t":"h","d":{"ts":5,"v":"5","h":"h:1","s":"s"}}}"#),
            (.pong, #"{"t":"c","d":{"t":"o","d":{}}}"#),
            (.answer(request: json("3"), status: "datastale", data: "the value changed"),
             #"{"t":"d","d":{"r":3,"b":{"s":"datastale","d":"the value changed"}}}"#),
            (.data(path: "/a", data: json(#"{"x":1}"#), tag: nil), #"{"t":"d","d":{"a":"d","b":{"p":"/a","d":{"x":1}}}}"#),
            (.data(path: "/a", data: .null, tag: 4), #"{"t":"d","d":{"a":"d","b":{"p":"/a","d":null,"t":4}}}"#),
            (.merge(path: "/a", data: json(#"{"k":null}"#), tag: 0), #"{"t":"d","d":{"a":"m","b":{"p":"/a","d":{"k":null},"t":0}}}"#),
            (.revoked(path: "/a", query: .null, tag: nil), #"{"t":"d","d":{"a":"c","b":{"p":"/a"}}}"#),
            (.revoked(path: "/a", query: json(#"{"l":2}"#), tag: 9), #"{"t":"d","d":{"a":"c","b":{"p":"/a","q":{"l":2},"t":9}}}"#),
            (.cancelled(path: "/", why: "the file was removed"), #"{"t":"d","d":{"a":"c","b":{"p":"/","d":"the file was removed"}}}"#),
        ]
        for (message, text) in cases {
            #expect(message.wire.text == text)
        }
    }
}
