import Hummingbird
import QuestlineCore

/// The checks every request's address and origin pass before anything reads a session or a
/// file, in one middleware level (#37, item 4: each level of the chain is an async call and a
/// copy of the context), in this order:
///
/// 1. the canonical spelling (`CanonicalPath`): a redirect or a 404 before anything decides by
///    route;
/// 2. the text rule on the path and every query parameter (`TextRuleMiddleware.addressIssues`);
/// 3. a web form's origin (`SameOriginForm`).
struct AddressChecksMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if let redirect = try CanonicalPath.answer(request) { return redirect }
        let issues = TextRuleMiddleware.addressIssues(path: request.uri.path, query: request.uri.query)
        guard issues.isEmpty else { throw DomainError.invalid(issues) }
        try SameOriginForm.check(request, context)
        return try await next(request, context)
    }
}
