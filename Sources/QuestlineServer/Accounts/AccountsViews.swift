import Foundation
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

// The account screens as typed page models, each built by a pure function from what the
// features return.

/// A home page tile: an area and what it offers.
struct AreaTile: Equatable {
    let path: String
    let title: String
    let icon: String
    let what: String

    /// What each area offers, as the tiles say it: the catalog's keys.
    static let offers: [String: String] = [
        "/game": "accounts.home.tile.game", "/reading": "accounts.home.tile.reading",
        "/activity": "accounts.home.tile.activity", "/quests": "accounts.home.tile.quests",
        "/stories": "accounts.home.tile.stories",
    ]

    /// Every area but home, in the navigation's order, in the reader's language.
    static func all(_ l: Localizer) -> [AreaTile] {
        PageRenderer.areas.dropFirst().map {
            AreaTile(path: $0.path, title: l($0.title), icon: $0.icon, what: offers[$0.path].map { l($0) } ?? "")
        }
    }
}

/// A signed-in member's home (`home.mustache`): the join announcement, the widget, today, tiles.
struct HomePage: Equatable {
    let today: String
    let todayISO: String
    let announcement: AnnouncementView?
    let widget: WidgetCard?
    let areas: [AreaTile]
    /// A guardian's requests for more time, live (`live.js` on the household's events).
    let requests: WaitingRequests?
    let live: String?
    let notice: String?

    init(
        today: LocalDay, announcement: AnnouncementView?, widget: WidgetModel?, requests: WaitingRequests? = nil,
        live: String? = nil, notice: String? = nil, localizer l: Localizer
    ) {
        self.today = l.format(today, .weekday)
        todayISO = today.iso
        self.requests = requests.flatMap { $0.rows.isEmpty ? nil : $0 }
        self.live = live
        self.notice = notice
        self.announcement = announcement
        // The announcement offers Join itself: the widget then shows without its buttons (one
        // Join on the page, not two).
        self.widget = widget.map { WidgetCard($0, interactive: announcement == nil) }
        areas = AreaTile.all(l)
    }
}

/// The signed-out home (`landing.mustache`).
struct LandingPage: Equatable {
    let widget: WidgetCard?

    init(widget: WidgetModel?) { self.widget = widget.map { WidgetCard($0) } }
}

/// A form's typed values and the refusal's messages by field.
struct FormState: Equatable {
    var values: [String: String] = [:]
    var errors: [String: String] = [:]
    /// Why the form was refused (its status), nil for a form first shown.
    var error: DomainError?

    init(values: [String: String] = [:], error: DomainError? = nil) {
        self.values = values
        self.error = error
        errors = error.map { FieldErrors.of($0) } ?? [:]
    }
}

/// Sign-up (`signup.mustache`).
struct SignupPage: Equatable {
    let values: [String: String]
    let errors: [String: String]
    let next: String
    let timeZones: [String]
    let passwordHint: String
    let nameHint: String

    init(_ form: FormState, next: String, localizer l: Localizer) {
        values = form.values
        errors = form.errors
        self.next = next
        timeZones = TimeZoneNames.all
        passwordHint = l("accounts.field.passwordHint", ["count": .number(AccountRules.passwordMinLength)])
        nameHint = l("accounts.field.nameHint", ["count": .number(AccountRules.displayNameMaxLength)])
    }
}

/// Log in (`login.mustache`), first shown or after a refused login.
struct LoginPage: Equatable {
    /// What the secondary buttons answer: there is no password reset by e-mail or social
    /// sign-in, and the page says so rather than pretending.
    struct Toasts: Equatable {
        let forgot: String
        let facebook: String
    }

    /// The notices a link asks for (`/login?notice=forgot`), by their catalog's keys.
    static let notices = [
        "forgot": "accounts.login.notice.forgot", "facebook": "accounts.login.notice.facebook",
        "deleted": "accounts.login.notice.deleted",
    ]

    let next: String
    let signedOut: Bool
    let notice: String?
    let toasts: Toasts
    let values: [String: String]
    let errors: [String: String]

    init(
        next: String, signedOut: Bool = false, notice: String? = nil, form: FormState = FormState(),
        localizer l: Localizer
    ) {
        self.next = next
        self.signedOut = signedOut
        self.notice = notice.flatMap { Self.notices[$0] }.map { l($0) }
        toasts = Toasts(forgot: l(Self.notices["forgot"]!), facebook: l(Self.notices["facebook"]!))
        values = form.values
        errors = form.errors
    }
}

/// What the notification settings form shows: the saved settings, or what was just sent.
struct NotificationsForm: Equatable {
    /// The form as sent (checkboxes on or off, the hours chosen).
    struct Sent: Equatable {
        let streakReminders: Bool
        let questUpdates: Bool
        let quiet: Bool
        let start: Int?
        let end: Int?
    }

    let streakReminders: Bool
    let questUpdates: Bool
    let quiet: Bool
    let startHours: [HourOption]
    let endHours: [HourOption]
    let error: String?
    let saved: Bool

    init(
        _ stored: NotificationPreferences, sent: Sent?, error: DomainError?, justSaved: Bool,
        localizer l: Localizer
    ) {
        streakReminders = sent?.streakReminders ?? stored.streakReminders
        questUpdates = sent?.questUpdates ?? stored.questUpdates
        quiet = sent?.quiet ?? (stored.quietHours != nil)
        startHours = HourOption.day(selecting: sent?.start ?? stored.quietHours?.start ?? 20, localizer: l)
        endHours = HourOption.day(selecting: sent?.end ?? stored.quietHours?.end ?? 7, localizer: l)
        self.error = error.map { FieldErrors.of($0, l).values.sorted().joined(separator: " ") }
        saved = justSaved && error == nil
    }
}

/// The profile (`profile.mustache`): name, zone and language; the household and its children;
/// notifications; the member's data.
struct ProfilePage: Equatable {
    struct Household: Equatable {
        struct Member: Equatable {
            let id: String
            let displayName: String
            /// The member's role in the household, in words ("guardian").
            let role: String
            let login: String
            let deletable: Bool
            /// The confirmation before deleting their account.
            let deleteConfirmation: String
        }

        let name: String
        /// "you are a guardian".
        let role: String
        let isGuardian: Bool
        let members: [Member]
    }

    /// Which of the page's forms was sent and refused, and what it held.
    enum Refused: Equatable {
        case profile(FormState)
        case household(FormState)
        case child(FormState)
        case notifications(NotificationsForm.Sent, DomainError)
        case account(DomainError)
    }

    let notice: String?
    let login: String
    let values: [String: String]
    let errors: [String: String]
    let languages: [LanguageOption]
    /// What the page offers follows the one policy: a child's zone and account are a
    /// guardian's to change.
    let isChild: Bool
    let canDeleteSelf: Bool
    let timeZones: [String]
    /// A child's zone, which only a guardian changes.
    let timeZone: String
    let nameHint: String
    let household: Household?
    let noHousehold: Bool
    let childValues: [String: String]
    let childErrors: [String: String]
    let notifications: NotificationsForm

    init(
        _ member: MemberRecord, household: HouseholdRecord?, notifications stored: NotificationPreferences,
        refused: Refused? = nil, notice: String? = nil, notificationsSaved: Bool = false, localizer l: Localizer
    ) {
        self.notice = notice
        login = member.email ?? member.username ?? ""
        var values = ["displayName": member.displayName, "timeZone": member.timeZone]
        var errors: [String: String] = [:]
        var child = FormState()
        var sentNotifications: NotificationsForm.Sent?
        var notificationError: DomainError?
        switch refused {
        case .profile(let form):
            values = form.values
            errors = form.errors
        case .household(let form): errors = form.errors
        case .account(let error): errors = FieldErrors.of(error, l)
        case .child(let form): child = form
        case .notifications(let sent, let error): (sentNotifications, notificationError) = (sent, error)
        case nil: break
        }
        self.values = values
        self.errors = errors
        languages = Self.languages(selecting: values["language"] ?? member.language ?? "en")
        isChild = !AccessPolicy.allows(member.actor, .changeTimeZone(member.scope))
        canDeleteSelf = AccessPolicy.allows(member.actor, .deleteMember(member.scope))
        timeZones = TimeZoneNames.all
        timeZone = values["timeZone"] ?? member.timeZone
        nameHint = l("accounts.field.nameHint", ["count": .number(AccountRules.displayNameMaxLength)])
        self.household = household.map { household in
            Household(
                name: household.name, role: member.role.map { l("profile.household.youAre.\($0.rawValue)") } ?? "",
                isGuardian: member.role == .guardian,
                members: household.members.map {
                    Household.Member(
                        id: $0.id.rawValue, displayName: $0.displayName,
                        role: $0.role.map { l("households.role.\($0.rawValue)") } ?? "",
                        login: $0.email ?? $0.username ?? "",
                        deletable: $0.id != member.id && AccessPolicy.allows(member.actor, .deleteMember($0.scope)),
                        deleteConfirmation: l("profile.household.deleteConfirmation", ["name": .text($0.displayName)]))
                })
        }
        noHousehold = household == nil
        childValues = child.values
        childErrors = child.errors
        notifications = NotificationsForm(
            stored, sent: sentNotifications, error: notificationError, justSaved: notificationsSaved, localizer: l)
    }

    /// The profile's language choice: the game's languages by their codes, each named in itself
    /// (Questline speaks the ten of `Language.shipped`; a region's Chinese by its own name).
    static func languages(selecting chosen: String) -> [LanguageOption] {
        GameLanguage.supported.map { code in
            let name =
                Language.shipped.first { $0.code.lowercased() == code }?.nativeName
                ?? Locale(identifier: code).localizedString(forIdentifier: code) ?? code
            return LanguageOption(code: code, name: name, selected: code == chosen)
        }
    }
}
