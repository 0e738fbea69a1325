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
    ]

    @Test(arguments: rows)
    func decides(_ row: Row) {
        #expect(Self.outcome(row.actor, row.action) == row.expected)
    }
}
