import Foundation
import HTTPTypes
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineStore

/// The server-rendered web app: the stand-in for the phone screens. Pages call the same use
/// cases as the API; a form error is shown next to its field, with the typed values kept.
struct AccountsPages {
    let accounts: AccountsFeature
    let notifications: NotificationsFeature
    let reading: ReadingPages
    let pages: PageRenderer
    /// Confirmations after a redirect ("Kit is added").
    let flash: Flash
    let secureCookies: Bool
    let sessionLifetime: TimeInterval

    func register(on router: Router<AppRequestContext>) {
        router.get("/") { request, context in try await self.home(request, context) }
        router.get("/signup") { request, context in
            self.pages.page(
                "signup", title: "Create your account",
                data: ["values": ["timeZone": "UTC"], "next": self.next(request), "timeZones": TimeZoneNames.all],
                context: context, path: "/signup", back: "/")
        }
        router.post("/signup") { request, context in try await self.signUp(request, context) }
        router.get("/login") { request, context in
            self.loginPage(
                context, next: self.next(request), signedOut: request.uri.queryParameters["signedOut"] != nil,
                notice: request.uri.queryParameters["notice"].map(String.init))
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

    /// Everything held about the member, as a JSON file to keep.
    private func export(_ context: AppRequestContext) async throws -> Response {
        guard let member = context.identity.member else {
            return Response.redirect(to: "/login?next=/profile", type: .normal)
        }
        // The same archive as the API's (`MemberArchive`), as a file to keep.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let body = try encoder.encode(try await accounts.export(member))
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json; charset=utf-8",
                .contentDisposition: "attachment; filename=\"questline-data.json\"", .cacheControl: "no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// Deletes the signed-in member's account (after the page's confirmation), then signs out.
    private func deleteAccount(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let member = context.identity.member else {
            return Response.redirect(to: "/login?next=/profile", type: .normal)
        }
        do {
            try await accounts.deleteMember(member.id, as: member)
        } catch let error as DomainError {
            return try await profile(request, context, error: error)
        }
        var response = Response.redirect(to: "/login?notice=deleted", type: .normal)
        response.setCookie(sessionCookie(value: "", maxAge: 0))
        return response
    }

    /// A guardian deletes a child's account.
    private func deleteChild(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let member = context.identity.member else {
            return Response.redirect(to: "/login?next=/profile", type: .normal)
        }
        let child = try MemberID.parse(context.parameters.get("child") ?? "", field: "child")
        do {
            try await accounts.deleteMember(child, as: member)
        } catch let error as DomainError {
            return try await profile(request, context, error: error)
        }
        return Response.redirect(to: "/profile?childDeleted=1", type: .normal)
    }

    /// What the login page's secondary buttons answer: there is no password reset by e-mail or
    /// social sign-in, and the page says so rather than pretending.
    static let loginNotices = [
        "forgot":
            "Password reset by e-mail is not available. A guardian can set a new password for a child; otherwise create a new account.",
        "facebook": "Signing in with Facebook is not available. Log in with your e-mail or username and password.",
        "deleted": "Your account and everything held about it are deleted.",
    ]

    /// What each area offers, as the home page's tiles say it.
    static let available: [String: String] = [
        "/game": "Which came first? The daily history game",
        "/reading": "Reading streaks and the reading challenge",
        "/activity": "What you read and saved: the Saved module, reading time, streak and badges",
        "/quests": "Family quests: guardians set challenges, children earn points and unlock apps",
        "/stories": "Track stories: chapters, selfies at the track, points and the card shop",
    ]

    // MARK: Pages

    private func home(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let (reader, newDevice) = reading.reader(request, context)
        var announcement: [String: Any]?
        if let member = context.identity.member { announcement = try await reading.announcementData(member) }
        // The announcement offers Join itself: the widget then shows without its buttons (one
        // Join on the page, not two).
        let widget: Any =
            try await reading.widgetData(reader, surface: "home", interactive: announcement == nil) ?? false
        guard let member = context.identity.member else {
            return ReadingPages.withDevice(
                pages.page("landing", title: "Questline", data: ["widget": widget], context: context, path: "/"),
                newDevice)
        }
        let zone = member.zone
        let today = LocalDay(accounts.clock.now(), in: zone)
        return pages.page(
            "home", title: "Questline",
            data: [
                "today": Wording.longDate(today),
                "todayISO": today.iso,
                "widget": widget,
                "announcement": announcement ?? false as Any,
                "areas": PageRenderer.areas.dropFirst().map { area in
                    [
                        "path": area.path, "title": area.title, "icon": area.icon,
                        "what": Self.available[area.path] ?? "",
                    ] as [String: Any]
                },
            ], context: context, path: "/")
    }

    private func signUp(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let form = try await Form(request)
        let values = ["email": form["email"], "displayName": form["displayName"], "timeZone": form["timeZone"]]
        do {
            let signedIn = try await accounts.signUp(
                email: form["email"], password: form["password"],
                displayName: form["displayName"], timeZone: form["timeZone"])
            try await adoptDevice(request, signedIn)
            return signedInRedirect(signedIn, to: safeNext(form["next"]))
        } catch let error as DomainError {
            return formError(
                "signup", title: "Create your account", error: error, values: values, next: form["next"],
                context: context, path: "/signup")
        }
    }

    private func logIn(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let form = try await Form(request)
        do {
            let signedIn = try await accounts.logIn(login: form["login"], password: form["password"])
            try await adoptDevice(request, signedIn)
            return signedInRedirect(signedIn, to: safeNext(form["next"]))
        } catch let error as DomainError {
            return loginPage(context, next: form["next"], error: error, values: ["login": form["login"]])
        }
    }

    /// The login page, first shown or after a refused login: the same data either way (the
    /// secondary buttons' messages included).
    private func loginPage(
        _ context: AppRequestContext, next: String, signedOut: Bool = false, notice: String? = nil,
        error: DomainError? = nil, values: [String: String] = [:]
    ) -> Response {
        pages.page(
            "login", title: "Log in",
            data: [
                "next": safeNext(next), "signedOut": signedOut,
                "notice": notice.flatMap { Self.loginNotices[$0] } ?? false, "toasts": Self.loginNotices,
                "values": values, "errors": error.map(FieldErrors.of) ?? [:],
            ],
            context: context, path: "/login", status: error.map { Problem.from($0).httpStatus } ?? .ok, back: "/")
    }

    private func logOut(_ context: AppRequestContext) async throws -> Response {
        if context.identity.member != nil { try await accounts.logOut(context.identity) }
        var response = Response.redirect(to: "/login?signedOut=1", type: .normal)
        response.setCookie(sessionCookie(value: "", maxAge: 0))
        return response
    }

    private func profile(
        _ request: Request, _ context: AppRequestContext, error: DomainError? = nil,
        values: [String: String]? = nil, notificationValues: Form? = nil, notice: String? = nil,
        childValues: [String: String]? = nil
    ) async throws -> Response {
        guard let member = context.identity.member else {
            return Response.redirect(to: "/login?next=/profile", type: .normal)
        }
        var data: [String: Any] = [
            "values": values ?? ["displayName": member.displayName, "timeZone": member.timeZone],
            "languages": GameLanguage.supported.compactMap { try? GameLanguage($0) }.map {
                [
                    "code": $0.code, "name": $0.name,
                    "selected": $0.code == (values?["language"] ?? member.language ?? "en"),
                ] as [String: Any]
            },
            "login": member.email ?? member.username ?? "",
            // What the page offers follows the one policy: a child's zone and account are a
            // guardian's to change.
            "isChild": !AccessPolicy.allows(member.actor, .changeTimeZone(member.scope)),
            "canDeleteSelf": AccessPolicy.allows(member.actor, .deleteMember(member.scope)),
            // No notice is `false`, not "": an empty string still opens the section (an empty bar).
            "notice": notice
                ?? (request.uri.queryParameters["saved"] != nil
                ? "Your profile is saved."
                : request.uri.queryParameters["childDeleted"] != nil
                    ? "The child's account is deleted." : false) as Any,
            "timeZones": TimeZoneNames.all,
            "notifications": Self.notificationData(
                try await notifications.preferences(member), values: notificationValues,
                error: notificationValues == nil ? nil : error,
                saved: request.uri.queryParameters["notifications"] != nil),
        ]
        if let householdID = member.householdID, let household = try? await accounts.household(householdID, as: member)
        {
            data["household"] = [
                "name": household.name,
                "role": member.role?.rawValue ?? "",
                "isGuardian": member.role == .guardian,
                "members": household.members.map {
                    [
                        "id": $0.id.rawValue, "displayName": $0.displayName, "role": $0.role?.rawValue ?? "",
                        "login": $0.email ?? $0.username ?? "",
                        "deletable": $0.id != member.id
                            && AccessPolicy.allows(member.actor, .deleteMember($0.scope)),
                    ]
                },
            ]
        } else {
            data["noHousehold"] = true
        }
        if let childValues {
            // The add-child form keeps what was typed (not the password) and its own errors.
            data["childValues"] = childValues
            data["childErrors"] = error.map(FieldErrors.of) ?? [:]
        } else if let error, notificationValues == nil {
            data["errors"] = FieldErrors.of(error)
        }
        if let confirmation = flash.text(of: .notice, in: request) { data["notice"] = confirmation }
        return pages.page(
            "profile", title: "Profile", data: data, context: context, path: "/profile",
            status: error.map { Problem.from($0).httpStatus } ?? .ok, back: "/")
    }

    private func updateProfile(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let member = context.identity.member else {
            return Response.redirect(to: "/login?next=/profile", type: .normal)
        }
        let form = try await Form(request)
        do {
            // A child's form has no time zone (a guardian sets it).
            _ = try await accounts.updateProfile(
                member.id, as: member, displayName: form["displayName"],
                timeZone: AccessPolicy.allows(member.actor, .changeTimeZone(member.scope)) ? form["timeZone"] : nil,
                language: form["language"].isEmpty ? nil : form["language"])
            return Response.redirect(to: "/profile?saved=1", type: .normal)
        } catch let error as DomainError {
            return try await profile(
                request, context, error: error,
                values: [
                    "displayName": form["displayName"],
                    "timeZone": member.role == .child ? member.timeZone : form["timeZone"],
                    "language": form["language"],
                ])
        }
    }

    /// The notification settings form: reminders and quest updates on or off, quiet hours
    /// from one hour to another, or none.
    private func updateNotifications(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let member = context.identity.member else {
            return Response.redirect(to: "/login?next=/profile", type: .normal)
        }
        let form = try await Form(request)
        do {
            let quiet = form["quiet"] == "on"
            _ = try await notifications.setPreferences(
                member, streakReminders: form["streakReminders"] == "on", questUpdates: form["questUpdates"] == "on",
                quietStart: quiet ? try Self.hour(form["quietStart"], field: "quietHours.start") : nil,
                quietEnd: quiet ? try Self.hour(form["quietEnd"], field: "quietHours.end") : nil)
            return Response.redirect(to: "/profile?notifications=1#notifications-title", type: .normal)
        } catch let error as DomainError {
            return try await profile(request, context, error: error, notificationValues: form)
        }
    }

    private static func hour(_ text: String, field: String) throws(DomainError) -> Int {
        guard let hour = Int(text) else { throw .invalid(field: field, "Choose an hour.") }
        return hour
    }

    /// What the notifications form shows: the saved settings, or what was just typed.
    private static func notificationData(
        _ saved: NotificationPreferences, values form: Form?, error: DomainError?, saved justSaved: Bool
    ) -> [String: Any] {
        let streak = form.map { $0["streakReminders"] == "on" } ?? saved.streakReminders
        let quest = form.map { $0["questUpdates"] == "on" } ?? saved.questUpdates
        let quiet = form.map { $0["quiet"] == "on" } ?? (saved.quietHours != nil)
        let start = form.flatMap { Int($0["quietStart"]) } ?? saved.quietHours?.start ?? 20
        let end = form.flatMap { Int($0["quietEnd"]) } ?? saved.quietHours?.end ?? 7
        return [
            "streakReminders": streak, "questUpdates": quest, "quiet": quiet,
            "startHours": HourOption.day(selecting: start), "endHours": HourOption.day(selecting: end),
            "error": error.map { FieldErrors.of($0).values.sorted().joined(separator: " ") } ?? false,
            "saved": justSaved && error == nil,
        ]
    }

    private func createHousehold(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let member = context.identity.member else {
            return Response.redirect(to: "/login?next=/profile", type: .normal)
        }
        let form = try await Form(request)
        do {
            _ = try await accounts.createHousehold(name: form["name"], as: member)
            return Response.redirect(to: "/profile", type: .normal)
        } catch let error as DomainError {
            return try await profile(request, context, error: error)
        }
    }

    private func createChild(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let member = context.identity.member else {
            return Response.redirect(to: "/login?next=/profile", type: .normal)
        }
        guard let household = member.householdID else { throw DomainError.notFound("You have no household yet.") }
        let form = try await Form(request)
        do {
            let child = try await accounts.createChild(
                in: household, as: member, username: form["username"], password: form["password"],
                displayName: form["displayName"], timeZone: nil)
            return flash.redirect(
                to: "/profile", .notice,
                "\(child.displayName) is added: they log in with the username \(child.username ?? "") and the password you chose."
            )
        } catch let error as DomainError {
            var context = context
            context.identity = Identity(
                member: try await accounts.refreshed(member), tokenHash: context.identity.tokenHash, failure: nil)
            return try await profile(
                request, context, error: error,
                childValues: ["displayName": form["displayName"], "username": form["username"]])
        }
    }

    // MARK: Helpers

    /// This browser's reads and pending join (made before signing in) become the member's.
    private func adoptDevice(_ request: Request, _ signedIn: SignedIn) async throws {
        if let device = request.cookies[ReadingPages.deviceCookie]?.value {
            try await reading.reading.adoptDevice(device, member: signedIn.member)
        }
    }

    private func signedInRedirect(_ signedIn: SignedIn, to path: String) -> Response {
        var response = Response.redirect(to: path, type: .normal)
        response.setCookie(sessionCookie(value: signedIn.token, maxAge: Int(sessionLifetime)))
        return response
    }

    private func sessionCookie(value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: AuthMiddleware.cookieName, value: value, maxAge: maxAge, path: "/", secure: secureCookies,
            httpOnly: true, sameSite: .lax)
    }

    private func formError(
        _ template: String, title: String, error: DomainError, values: [String: String], next: String,
        context: AppRequestContext, path: String
    ) -> Response {
        pages.page(
            template, title: title,
            data: ["values": values, "errors": FieldErrors.of(error), "next": next, "timeZones": TimeZoneNames.all],
            context: context, path: path, status: Problem.from(error).httpStatus, back: "/")
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
