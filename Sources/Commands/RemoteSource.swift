// `--auth-token`: the credential for a database URL where a command takes a file.
import ArgumentParser
import RemoteStore

/// `--auth-token`, shared by every command that takes a file or a database URL.
struct RemoteOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "For a database URL: a database secret or an OAuth2 access token (default: $SYNCTABLE_AUTH_TOKEN). "
            + "Never printed.", valueName: "token"))
    var authToken: String?

    /// The token of `--auth-token`, else of `SYNCTABLE_AUTH_TOKEN`.
    var credential: Credential? { Credential.resolve(option: authToken) }
}
