// Tokens: where they go in a request, and that they are never shown.
@testable import RemoteStore
import Testing

@Suite struct CredentialTests {
    @Test func oauthTokensGoInTheHeaderOthersInTheQuery() throws {
        let oauth = try #require(Credential(token: "ya29.a0AfB_secret"))
        #expect(oauth.placement == .bearerHeader)
        #expect(oauth.headers.map(\.value) == ["Bearer ya29.a0AfB_secret"] && oauth.parameters.isEmpty)
        let secret = try #require(Credential(token: "legacy-database-secret"))
        #expect(secret.placement == .authParameter)
        #expect(secret.parameters.map(\.value) == ["legacy-database-secret"] && secret.headers.isEmpty)
        #expect(Credential(token: "") == nil)
    }

    @Test func theOptionWinsOverTheEnvironment() {
        let env = [Credential.environmentVariable: "from-env"]
        #expect(Credential.resolve(option: "from-option", environment: env)?.parameters.first?.value == "from-option")
        #expect(Credential.resolve(option: nil, environment: env)?.parameters.first?.value == "from-env")
        #expect(Credential.resolve(option: nil, environment: [:]) == nil)
    }

    @Test func theTokenIsNeverShown() throws {
        for token in ["ya29.TOPSECRET", "TOPSECRET/+="] {
            let credential = try #require(Credential(token: token))
            var dumped = ""
            dump(credential, to: &dumped)
            for text in [String(describing: credential), String(reflecting: credential), "\(credential)", dumped] {
                #expect(!text.contains("TOPSECRET"), "\(text)")
            }
            let redacted = credential.redact("GET /a.json?auth=\(percentEncoded(token)) failed for \(token)")
            #expect(!redacted.contains("TOPSECRET") && redacted.contains("•••"), "\(redacted)")
        }
    }
}
