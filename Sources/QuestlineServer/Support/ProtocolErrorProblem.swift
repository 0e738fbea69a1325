import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import QuestlineCore
import QuestlineL10n

/// Answers a request the HTTP parser refuses (a header block over the parser's limit, a
/// malformed request line) with a problem document, as every other refusal is answered, instead
/// of the bare `400` with no body that the server would write: `431` for headers too large,
/// `400` otherwise, and the connection closed (the parser cannot go on after either).
///
/// Sits after the HTTP codec (Hummingbird's `additionalChannelHandlers`), where the parser's
/// error arrives before Hummingbird's own handler would see it.
final class ProtocolErrorProblemHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var answered = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        let tooLarge = parserError == .headerOverflow
        let problem = Problem(
            status: tooLarge ? .requestHeaderFieldsTooLarge : .badRequest,
            type: tooLarge ? "headers-too-large" : "malformed-request",
            title: Message(tooLarge ? "problem.title.headersTooLarge" : "problem.title.malformedRequest"),
            detail: Message(tooLarge ? "problem.detail.headersTooLarge" : "problem.detail.malformedRequest"))
        let body = ByteBuffer(bytes: problem.encoded(.english))
        let head = HTTPResponse(
            status: problem.httpStatus,
            headerFields: [
                .contentType: Problem.contentType, .contentLength: String(body.readableBytes), .connection: "close",
            ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        // The handler's context lives on its event loop, where the write completes.
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
