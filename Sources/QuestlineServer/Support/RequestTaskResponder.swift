import Hummingbird

/// Runs the requests that hold their connection open for long (the live event streams) in a
/// child task of the connection's task, which ends once the response is made; every other
/// request runs in the connection's task as usual.
///
/// Swift keeps the memory an async task's frames once needed (its allocator's slabs) until the
/// task ends, and a connection's task lives as long as the connection: an event stream kept what
/// the middleware stack and its handler needed at their deepest, for as long as the stream lasted
/// (docs/performance.md, "Live subscribers"). Not for every request: a child task for each cost
/// every read more CPU (its resumptions no longer ran where the connection's did).
public struct RequestTaskResponder<Responder: HTTPResponder>: HTTPResponder where Responder.Context: Sendable {
    public typealias Context = Responder.Context
    let responder: Responder
    /// Whether a request is one of those.
    let holdsConnection: @Sendable (Request) -> Bool

    public func respond(to request: Request, context: Context) async throws -> Response {
        guard holdsConnection(request) else { return try await responder.respond(to: request, context: context) }
        async let response = responder.respond(to: request, context: context)
        return try await response
    }
}

/// Builds the router's responder wrapped in a `RequestTaskResponder`.
struct RequestTaskResponderBuilder<Builder: HTTPResponderBuilder>: HTTPResponderBuilder
where Builder.Responder.Context: Sendable {
    let builder: Builder
    let holdsConnection: @Sendable (Request) -> Bool

    func buildResponder() -> RequestTaskResponder<Builder.Responder> {
        RequestTaskResponder(responder: builder.buildResponder(), holdsConnection: holdsConnection)
    }
}
