import Foundation
import HTTPTypes
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The server-rendered web app: the stand-in for the phone screens. Pages call the same use
/// cases as the API; a form error is shown next to its field, with the typed values kept. This
/// file: home, sign-up, log in and out; the profile's forms are in `ProfilePages.swift`.
struct AccountsPages {
    let accounts: AccountsFeature
    let notifications: NotificationsFeature
    /// A guardian's home shows the requests for more time waiting for them.
    let family: FamilyFeatures
    let reading: ReadingPages
    let pages: PageRenderer
    /// Confirmations after a redirect ("Kit is added").
    let flash: Flash
    let secureCookies: Bool
    let sessionLifetime: TimeInterval

    func register(on router: Router<AppRequestContext>) {
        router.get("/") { request, context in try await self.home(request, context) }
        router.get("/language") { request, context in self.chooseLanguage(request, context) }
        router.get("/signup") { request, context in
            self.pages.page(
                "signup", title: context.localizer("accounts.signup.title"),
                model: SignupPage(
                    FormState(values: ["timeZone": "UTC"]), next: self.next(request), localizer: context.localizer),
                context: context, path: "/signup", back: "/")
        }
        router.post("/signup") { request, context in try await self.signUp(request, context) }
        router.get("/login") { request, context in
            self.loginPage(
                LoginPage(
                    next: self.next(request), signedOut: request.uri.queryParameters["signedOut"] != nil,
                    notice: request.uri.queryParameters["notice"].map(String.init), localizer: context.localizer),
                context: context)
        }
        router.post("/login") { request, context in try await self.logIn(request, context) }
        router.post("/logout") { _, context in try await self.logOut(context) }
        router.get("/profile") { request, context in try await self.profile(request, context) }
        router.post("/profile") { request, context in try await self.updateProfile(request, context) }
        router.post("/profile/notifications") { request, context in
            try await self.updateNotifications(request, context)
        }
        router.post("/household") { request, context in try await self.createHousehold(request, context) }
        router.post("/household/children") { request, context in try await self.createChild(request, context) }
        router.get("/profile/export") { _, context in try await self.export(context) }
        router.post("/profile/delete") { request, context in try await self.deleteAccount(request, context) }
        router.post("/household/children/:child/delete") { request, context in
            try await self.deleteChild(request, context)
        }
    }

    // MARK: Home

    private func home(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let (reader, newDevice) = reading.reader(request, context)
        guard let member = context.identity.member else {
            let page = LandingPage(widget: try await reading.widget(reader, surface: "home"))
            return ReadingPages.withDevice(
                pages.page("landing", title: "Questline", model: page, context: context, path: "/"),
                newDevice)
        }
        let widget = try await reading.widget(reader, surface: "home")
        let now = accounts.clock.now()
        let page = HomePage(
            today: LocalDay(now, in: member.zone),
            announcement: try await reading.announcement(member, widget: widget, scope: context.scope.write),
            widget: widget,
            requests: WaitingRequests(
                try await family.shield.waitingRequests(as: member), viewer: member, now: now, back: "/"),
            live: liveEventsPath(member), notice: flash.text(of: .notice, in: request), localizer: context.localizer)
        return pages.page(
            "home", title: "Questline", model: page, context: context, path: "/")
    }

    // MARK: Sign-up, log in and out

    private func signUp(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let form = try await Form(request)
        do {
            let signedIn = try await accounts.signUp(
                email: form["email"], password: form["password"],
                displayName: form["displayName"], timeZone: form["timeZone"], scope: context.scope.write)
            try await adoptDevice(request, signedIn, scope: context.scope.write)
            return signedInRedirect(signedIn, to: safeNext(form["next"]))
        } catch let error as DomainError {
            let values = ["email": form["email"], "displayName": form["displayName"], "timeZone": form["timeZone"]]
            return pages.page(
                "signup", title: context.localizer("accounts.signup.title"),
                model: SignupPage(
                    FormState(values: values, error: error), next: safeNext(form["next"]), localizer: context.localizer),
                context: context, path: "/signup", status: Problem.from(error).httpStatus, back: "/")
        }
    }

    private func logIn(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let form = try await Form(request)
        do {
            let signedIn = try await accounts.logIn(
                login: form["login"], password: form["password"], scope: context.scope.write)
            try await adoptDevice(request, signedIn, scope: context.scope.write)
            return signedInRedirect(signedIn, to: safeNext(form["next"]))
        } catch let error as DomainError {
            return loginPage(
                LoginPage(
                    next: safeNext(form["next"]), form: FormState(values: ["login": form["login"]], error: error),
                    localizer: context.localizer),
                context: context, status: Problem.from(error).httpStatus)
        }
    }

    /// The login page, first shown or after a refused login: one builder either way (the
    /// secondary buttons' messages included).
    private func loginPage(_ page: LoginPage, context: AppRequestContext, status: HTTPResponse.Status = .ok)
        -> Response
    {
        pages.page(
            "login", title: context.localizer("accounts.login.title"), model: page, context: context, path: "/login",
            status: status, back: "/")
    }

    private func logOut(_ context: AppRequestContext) async throws -> Response {
        if context.identity.member != nil { try await accounts.logOut(context.identity, scope: context.scope.write) }
        var response = Response.redirect(to: "/login?signedOut=1", type: .normal)
        response.setCookie(sessionCookie(value: "", maxAge: 0))
        return response
    }

    // MARK: Helpers

    /// This browser's reads and pending join (made before signing in) become the member's.
    private func adoptDevice(_ request: Request, _ signedIn: SignedIn, scope: WriteScope) async throws {
        if let device = request.cookies[ReadingPages.deviceCookie]?.value {
            try await reading.reading.adoptDevice(device, member: signedIn.member, scope: scope)
        }
    }

    private func signedInRedirect(_ signedIn: SignedIn, to path: String) -> Response {
        var response = Response.redirect(to: path, type: .normal)
        response.setCookie(sessionCookie(value: signedIn.token, maxAge: Int(sessionLifetime)))
        return response
    }

    func sessionCookie(value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: AuthMiddleware.cookieName, value: value, maxAge: maxAge, path: "/", secure: secureCookies,
            httpOnly: true, sameSite: .lax)
    }

    private func next(_ request: Request) -> String {
        safeNext(request.uri.queryParameters["next"].map(String.init) ?? "/")
    }

    /// Only same-site paths, never `//host` or a scheme.
    private func safeNext(_ raw: String) -> String {
        guard raw.hasPrefix("/"), !raw.hasPrefix("//"), !raw.contains("\\"), raw.count < 200 else { return "/" }
        return raw
    }
}

extension DomainError {
    /// A problem with what the form said (shown next to its fields, on the same page), as
    /// opposed to who is asking (not signed in, forbidden, not found: the error page, with its
    /// status).
    var isFormProblem: Bool {
        switch self {
        case .invalid, .conflict, .tooManyRequests: return true
        case .unauthenticated, .forbidden, .notFound, .unavailable: return false
        }
    }
}
