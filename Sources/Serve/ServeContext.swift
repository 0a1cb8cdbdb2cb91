// A request's context: Hummingbird's, and the connection's channel, by whose event loop a
// stream paces its writes.
import Hummingbird
import NIOCore

struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
