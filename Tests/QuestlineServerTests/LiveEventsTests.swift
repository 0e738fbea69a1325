import Foundation
import HTTPTypes
import Logging
import NIOConcurrencyHelpers
import QuestlineCore
import QuestlineFeatures
import QuestlineStore
import QuestlineTestSupport
import Testing

/// Live household events: written with the change, heard by a listener of another instance
/// (a second store on the same PostgreSQL, with its own LISTEN connection), resumed after an id
/// from the log, and ended when the instance drains.
@Suite struct LiveEventsTests {
    /// Collects a stream's updates.
    final class Received: Sendable {
        let updates = NIOLockedValueBox<[LiveUpdate]>([])
        let finished = NIOLockedValueBox(false)
        var events: [LiveEvent] {
            updates.withLockedValue { $0.compactMap { if case .event(let e) = $0 { e } else { nil } } }
        }

        func consume(_ stream: AsyncStream<LiveUpdate>) -> Task<Void, Never> {
            Task {
                for await update in stream { updates.withLockedValue { $0.append(update) } }
                finished.withLockedValue { $0 = true }
            }
        }

        /// Waits (up to 10 s) until `done` holds.
        func wait(until done: @Sendable (Received) -> Bool) async throws {
            for _ in 0..<1_000 where !done(self) { try await Task.sleep(for: .milliseconds(10)) }
        }
    }

    /// Another instance on the same database: a store of its own and a hub fed by it. On
    /// SQLite, which one instance serves, the app's own log.
    func otherInstance(_ app: Harness) throws -> (hub: LiveHub, store: Store?, listener: Task<Void, Never>?) {
        guard app.database == .postgres else { return (LiveHub(log: app.store.live), nil, nil) }
        let store = Store(database: try Database(app.store.database.location))
        let hub = LiveHub(log: store.live)
        let listener = Task { await hub.run(logger: .init(label: "test")) }
        return (hub, store, listener)
    }

    @Test func eventsWrittenThroughOneInstanceReachAnotherInOrderAndResumeFromTheLog() async throws {
        try await Harness.run { app in
            let f = try await QuestAPITests().family(app)
            let household = try HouseholdID.parse(f.household, field: "household")
            let (hub, other, listener) = try otherInstance(app)
            defer { listener?.cancel() }
            let received = Received()
            let consumer = received.consume(hub.subscribe(household))
            try await Task.sleep(for: .milliseconds(300))  // the LISTEN is in place

            for points in 1...20 {
                let reply = try await app.send(
                    .post, "/api/v1/children/\(f.childID)/adjustments",
                    json: #"{"points":\#(points),"reason":"Chores"}"#, token: f.guardian)
                #expect(reply.status == .created, "\(reply.text)")
            }
            try await received.wait { $0.events.count >= 20 }
            let events = received.events
            #expect(events.count == 20)
            #expect(events.allSatisfy { $0.kind == .points && $0.childId == f.childID })
            #expect(events.map(\.id) == events.map(\.id).sorted() && Set(events.map(\.id)).count == 20)

            // Another household's writes are not heard here.
            let otherChild = try await app.send(
                .post, "/api/v1/households/\(f.otherHousehold)/children",
                json: #"{"username":"Ada1","password":"kidpass123","displayName":"Ada"}"#, token: f.otherGuardian)
            #expect(otherChild.status == .created, "\(otherChild.text)")
            let adjusted = try await app.send(
                .post, "/api/v1/children/\(try otherChild.string("id"))/adjustments",
                json: #"{"points":1,"reason":"Hi"}"#, token: f.otherGuardian)
            #expect(adjusted.status == .created)

            // A device that saw the fifth event resumes after it: the 15 others from the log,
            // then live ones, with no repeats.
            let resumed = Received()
            let resumer = resumed.consume(hub.subscribe(household, after: events[4].id))
            _ = try await app.send(
                .put, "/api/v1/children/\(f.childID)/apps/chess",
                json: #"{"name":"Chess","role":"learning"}"#, token: f.guardian)
            try await resumed.wait { $0.events.count >= 16 }
            // What a listener heard is what the log holds, field by field (the notification
            // is built by PostgreSQL from the written row).
            #expect(Array(resumed.events.prefix(15)) == Array(events.dropFirst(5)))
            #expect(resumed.events.last?.kind == .catalog)
            #expect(resumed.events.count == 16)
            try await received.wait { $0.events.count >= 21 }
            #expect(received.events.count == 21, "the other household's event was not delivered here")

            // Events older than the log keeps: the device is told to refetch everything.
            app.clock.advance(by: 25 * 3600)
            let cutoff = app.clock.now().addingTimeInterval(-LiveEventLog.retention)
            #expect(try await app.store.live.purge(olderThan: cutoff) > 0)
            let late = Received()
            let lateConsumer = late.consume(hub.subscribe(household, after: events[0].id))
            try await late.wait { !$0.updates.withLockedValue(\.isEmpty) }
            let first = late.updates.withLockedValue { $0.first }
            #expect(first == .refetch)

            // Draining ends every stream, and later ones at once.
            hub.close()
            try await received.wait { $0.finished.withLockedValue { $0 } }
            let finished = received.finished.withLockedValue { $0 }
            #expect(finished)
            let afterClose = Received()
            await afterClose.consume(hub.subscribe(household)).value
            let nothing = afterClose.updates.withLockedValue(\.isEmpty)
            #expect(nothing)
            for task in [consumer, resumer, lateConsumer] { task.cancel() }
            await other?.shutdown()
        }
    }

    /// Listeners are kept by household: each event goes to its household's streams only, and a
    /// stream that ends leaves the table (the subscriber gauge goes back down).
    @Test func listenersAreCountedByHouseholdAndLeaveWhenTheirStreamEnds() async throws {
        try await Harness.run { app in
            let hub = LiveHub(log: app.store.live)
            let a = HouseholdID(UUID())
            let b = HouseholdID(UUID())
            let first = Received()
            let second = Received()
            let third = Received()
            let tasks = [
                first.consume(hub.subscribe(a)), second.consume(hub.subscribe(a)), third.consume(hub.subscribe(b)),
            ]
            #expect(hub.subscriberCount == 3)
            let event = try JSONDecoder().decode(
                LiveEvent.self, from: Data(#"{"id":7,"household":"\#(a.rawValue)","kind":"points","at":0}"#.utf8))
            hub.deliver(event)
            try await first.wait { $0.events.count == 1 }
            try await second.wait { $0.events.count == 1 }
            #expect(first.events == [event] && second.events == [event])
            #expect(third.events.isEmpty)
            tasks[0].cancel()
            tasks[2].cancel()
            for _ in 0..<500 where hub.subscriberCount != 1 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(hub.subscriberCount == 1)
            tasks[1].cancel()
            for _ in 0..<500 where hub.subscriberCount != 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(hub.subscriberCount == 0)
        }
    }
}
