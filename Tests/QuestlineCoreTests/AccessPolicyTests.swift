import Foundation
import QuestlineCore
import Testing

@Suite struct AccessPolicyTests {
    static let homeA = HouseholdID(UUID())
    static let homeB = HouseholdID(UUID())
    static let guardianA = Actor(memberID: MemberID(UUID()), householdID: homeA, role: .guardian)
    static let childA = Actor(memberID: MemberID(UUID()), householdID: homeA, role: .child)
    static let secondChildA = Actor(memberID: MemberID(UUID()), householdID: homeA, role: .child)
    static let guardianB = Actor(memberID: MemberID(UUID()), householdID: homeB, role: .guardian)
    static let loner = Actor(memberID: MemberID(UUID()), householdID: nil, role: nil)

    static func scope(_ actor: Actor) -> MemberScope {
        MemberScope(memberID: actor.memberID, householdID: actor.householdID, role: actor.role)
    }

    enum Outcome: Equatable { case allowed, forbidden, notFound }

    static func outcome(_ actor: Actor, _ action: Action) -> Outcome {
        do {
            try AccessPolicy.check(actor, action)
            return .allowed
        } catch {
            switch error {
            case .forbidden: return .forbidden
            case .notFound: return .notFound
            default: return .forbidden
            }
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let actor: Actor
        let action: Action
        let expected: Outcome
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "read self", actor: loner, action: .readMember(scope(loner)), expected: .allowed),
        Row(name: "update self", actor: childA, action: .updateMember(scope(childA)), expected: .allowed),
        Row(name: "stranger reads member", actor: loner, action: .readMember(scope(childA)), expected: .notFound),
        Row(name: "stranger updates member", actor: loner, action: .updateMember(scope(childA)), expected: .notFound),
        Row(
            name: "other guardian reads child", actor: guardianB, action: .readMember(scope(childA)),
            expected: .notFound),
        Row(
            name: "other guardian updates child", actor: guardianB, action: .updateMember(scope(childA)),
            expected: .notFound),
        Row(name: "guardian reads child", actor: guardianA, action: .readMember(scope(childA)), expected: .allowed),
        Row(name: "guardian updates child", actor: guardianA, action: .updateMember(scope(childA)), expected: .allowed),
        Row(name: "child reads guardian", actor: childA, action: .readMember(scope(guardianA)), expected: .allowed),
        Row(
            name: "child updates guardian", actor: childA, action: .updateMember(scope(guardianA)), expected: .forbidden
        ),
        Row(
            name: "child updates sibling", actor: childA, action: .updateMember(scope(secondChildA)),
            expected: .forbidden),
        Row(name: "member reads household", actor: childA, action: .readHousehold(homeA), expected: .allowed),
        Row(name: "stranger reads household", actor: loner, action: .readHousehold(homeA), expected: .notFound),
        Row(
            name: "other guardian reads household", actor: guardianB, action: .readHousehold(homeA), expected: .notFound
        ),
        Row(name: "guardian manages household", actor: guardianA, action: .manageHousehold(homeA), expected: .allowed),
        Row(name: "child manages household", actor: childA, action: .manageHousehold(homeA), expected: .forbidden),
        Row(
            name: "other guardian manages household", actor: guardianB, action: .manageHousehold(homeA),
            expected: .notFound),
        Row(name: "stranger manages household", actor: loner, action: .manageHousehold(homeA), expected: .notFound),
        // Deleting an account: one's own (not a child's own), a guardian a child's.
        Row(
            name: "guardian deletes self", actor: guardianA, action: .deleteMember(scope(guardianA)), expected: .allowed
        ),
        Row(name: "child deletes self", actor: childA, action: .deleteMember(scope(childA)), expected: .forbidden),
        Row(name: "guardian deletes child", actor: guardianA, action: .deleteMember(scope(childA)), expected: .allowed),
        Row(
            name: "child deletes sibling", actor: childA, action: .deleteMember(scope(secondChildA)),
            expected: .forbidden),
        Row(name: "stranger deletes child", actor: loner, action: .deleteMember(scope(childA)), expected: .notFound),
        // A member's zone: a child's is a guardian's to set.
        Row(name: "child moves itself", actor: childA, action: .changeTimeZone(scope(childA)), expected: .forbidden),
        Row(name: "guardian moves child", actor: guardianA, action: .changeTimeZone(scope(childA)), expected: .allowed),
        Row(
            name: "guardian moves self", actor: guardianA, action: .changeTimeZone(scope(guardianA)), expected: .allowed
        ),
        Row(name: "loner moves self", actor: loner, action: .changeTimeZone(scope(loner)), expected: .allowed),
        Row(
            name: "other guardian moves child", actor: guardianB, action: .changeTimeZone(scope(childA)),
            expected: .notFound),
        // Administration: the stored role only.
        Row(name: "guardian administers", actor: guardianA, action: .administer, expected: .forbidden),
        Row(
            name: "administrator administers",
            actor: Actor(memberID: MemberID(UUID()), householdID: nil, role: nil, isAdministrator: true),
            action: .administer, expected: .allowed),
        // Reporting use: the child's device or a guardian's.
        Row(name: "child reports use", actor: childA, action: .reportUsage(scope(childA)), expected: .allowed),
        Row(name: "guardian reports use", actor: guardianA, action: .reportUsage(scope(childA)), expected: .allowed),
        Row(
            name: "sibling reports use", actor: secondChildA, action: .reportUsage(scope(childA)), expected: .forbidden),
        Row(
            name: "other guardian reports use", actor: guardianB, action: .reportUsage(scope(childA)),
            expected: .notFound),
        // What only the child does.
        Row(
            name: "child redeems", actor: childA, action: .actAsChild(scope(childA), .redeemPoints), expected: .allowed),
        Row(
            name: "guardian redeems", actor: guardianA, action: .actAsChild(scope(childA), .redeemPoints),
            expected: .forbidden),
        Row(
            name: "other guardian asks for time", actor: guardianB, action: .actAsChild(scope(childA), .askForTime),
            expected: .notFound),
        // Comments: their authors only.
        Row(
            name: "author deletes comment", actor: childA, action: .deleteComment(author: childA.memberID),
            expected: .allowed),
        Row(
            name: "guardian deletes comment", actor: guardianA, action: .deleteComment(author: childA.memberID),
            expected: .forbidden),
    ]

    @Test(arguments: rows)
    func decides(_ row: Row) {
        #expect(Self.outcome(row.actor, row.action) == row.expected)
    }
}
