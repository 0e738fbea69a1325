import Hummingbird

/// The bundled files (`/static/…`) and the system's Leaflet (`/static/vendor/leaflet/…`), served
/// by Hummingbird's `FileMiddleware`, as one middleware level: a request outside `/static/`
/// (every API call and page) passes on after one prefix check instead of through two file
/// look-ups' levels. Under `/static/` the bundled files are tried first, then
/// Leaflet, then the router (a 404).
///
/// The bundled text files go compressed to a browser that accepts gzip (`StaticAssets`), and
/// `/favicon.ico` is the product's icon.
struct StaticFilesMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let bundled: FileMiddleware<Context, LocalFileSystem>
    let leaflet: FileMiddleware<Context, LocalFileSystem>
    let compressed: StaticAssets

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard request.uri.path.utf8.starts(with: "/static/".utf8) else {
            if request.uri.path == "/favicon.ico", request.method == .get || request.method == .head {
                return compressed.favicon
            }
            return try await next(request, context)
        }
        if request.method == .get, let response = compressed.response(to: request) { return response }
        return try await bundled.handle(request, context: context) { request, context in
            try await leaflet.handle(request, context: context, next: next)
        }
    }
}
