import Foundation
import HTTPTypes
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The profile and its forms: name, zone and language; notifications; the household and its
/// children; the member's data (download, delete). A refused form shows the profile again with
/// its errors under its own fields (`ProfilePage.Refused`).
extension AccountsPages {
    func profile(
        _ request: Request, _ context: AppRequestContext, refused: ProfilePage.Refused? = nil
    ) async throws -> Response {
        let member = try context.requireWebMember(next: "/profile")
        var household: HouseholdRecord?
        if let id = member.householdID { household = try await accounts.household(id, as: member) }
        // No notice is nil, not "": an empty string still opens the section (an empty bar).
        let q = request.uri.queryParameters
        let notice =
            flash.text(of: .notice, in: request)
            ?? (q["saved"] != nil
                ? context.localizer("profile.notice.saved")
                : q["childDeleted"] != nil ? context.localizer("profile.notice.childDeleted") : nil)
        let page = ProfilePage(
            member, household: household, notifications: try await notifications.preferences(member),
            refused: refused, notice: notice, notificationsSaved: q["notifications"] != nil,
            localizer: context.localizer)
        let status: HTTPResponse.Status =
            switch refused {
            case .profile(let form), .household(let form), .child(let form):
                form.error.map { Problem.from($0).httpStatus } ?? .ok
            case .notifications(_, let error), .account(let error): Problem.from(error).httpStatus
            case nil: .ok
            }
        return pages.page(
            "profile", title: context.localizer("profile.page.title"), model: page, context: context, path: "/profile",
            status: status, back: "/")
    }

    func updateProfile(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/profile")
        let form = try await Form(request)
        // A child's form has no time zone (a guardian sets it).
        let setsZone = AccessPolicy.allows(member.actor, .changeTimeZone(member.scope))
        do {
            _ = try await accounts.updateProfile(
                member.id, as: member, displayName: form["displayName"], timeZone: setsZone ? form["timeZone"] : nil,
                language: form["language"].isEmpty ? nil : form["language"], scope: context.scope.write)
            return Response.redirect(to: "/profile?saved=1", type: .normal)
        } catch let error as DomainError {
            let values = [
                "displayName": form["displayName"], "timeZone": setsZone ? form["timeZone"] : member.timeZone,
                "language": form["language"],
            ]
            return try await profile(request, context, refused: .profile(FormState(values: values, error: error)))
        }
    }

    /// The notification settings form: reminders and quest updates on or off, quiet hours
    /// from one hour to another, or none.
    func updateNotifications(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/profile")
        let form = try await Form(request)
        let sent = NotificationsForm.Sent(
            streakReminders: form["streakReminders"] == "on", questUpdates: form["questUpdates"] == "on",
            quiet: form["quiet"] == "on", start: Int(form["quietStart"]), end: Int(form["quietEnd"]))
        do {
            _ = try await notifications.setPreferences(
                member, streakReminders: sent.streakReminders, questUpdates: sent.questUpdates,
                quietStart: sent.quiet ? try Self.hour(sent.start, field: "quietHours.start") : nil,
                quietEnd: sent.quiet ? try Self.hour(sent.end, field: "quietHours.end") : nil,
                scope: context.scope.write)
            return Response.redirect(to: "/profile?notifications=1#notifications-title", type: .normal)
        } catch let error as DomainError {
            return try await profile(request, context, refused: .notifications(sent, error))
        }
    }

    private static func hour(_ hour: Int?, field: String) throws(DomainError) -> Int {
        guard let hour else { throw .invalid(field: field, Message("profile.error.chooseHour")) }
        return hour
    }

    func createHousehold(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/profile")
        let form = try await Form(request)
        do {
            let household = try await accounts.createHousehold(
                name: form["name"], as: member, scope: context.scope.write)
            return flash.redirect(
                to: "/profile", .notice,
                context.localizer("profile.notice.householdCreated", ["household": .text(household.name)]))
        } catch let error as DomainError {
            return try await profile(request, context, refused: .household(FormState(error: error)))
        }
    }

    func createChild(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/profile")
        guard let household = member.householdID else {
            throw DomainError.notFound(Message("households.error.noHouseholdYet"))
        }
        let form = try await Form(request)
        do {
            let child = try await accounts.createChild(
                in: household, as: member, username: form["username"], password: form["password"],
                displayName: form["displayName"], timeZone: nil, scope: context.scope.write)
            return flash.redirect(
                to: "/profile", .notice,
                context.localizer(
                    "profile.notice.childAdded",
                    ["name": .text(child.displayName), "username": .text(child.username ?? "")]))
        } catch let error as DomainError {
            var context = context
            context.identity = Identity(
                member: try await accounts.refreshed(member), tokenHash: context.identity.tokenHash, failure: nil)
            // The add-child form keeps what was typed (not the password) and its own errors.
            let values = ["displayName": form["displayName"], "username": form["username"]]
            return try await profile(request, context, refused: .child(FormState(values: values, error: error)))
        }
    }

    // MARK: The member's data

    /// Everything held about the member, as a JSON file to keep: the same archive as the
    /// API's (`MemberArchive`).
    func export(_ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/profile")
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
    func deleteAccount(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/profile")
        do {
            try await accounts.deleteMember(member.id, as: member, scope: context.scope.write)
        } catch let error as DomainError {
            return try await profile(request, context, refused: .account(error))
        }
        var response = Response.redirect(to: "/login?notice=deleted", type: .normal)
        response.setCookie(sessionCookie(value: "", maxAge: 0))
        return response
    }

    /// A guardian deletes a child's account.
    func deleteChild(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/profile")
        let child = try MemberID.parse(context.parameters.get("child") ?? "", field: "child")
        do {
            try await accounts.deleteMember(child, as: member, scope: context.scope.write)
        } catch let error as DomainError {
            return try await profile(request, context, refused: .account(error))
        }
        return Response.redirect(to: "/profile?childDeleted=1", type: .normal)
    }
}
