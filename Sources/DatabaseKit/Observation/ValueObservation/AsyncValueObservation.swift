/// The values of a ``ValueObservation``, as an async sequence
/// (``ValueObservation/values(in:scheduling:bufferingPolicy:)``).
///
/// Each iteration starts its own observation, cancelled when the iterator
/// goes away (the loop ends, its task is cancelled).
public struct AsyncValueObservation<Element: Sendable>: AsyncSequence, Sendable {
    /// How many values wait for the consumer, when it is slower than the
    /// database.
    public typealias BufferingPolicy = AsyncThrowingStream<Element, any Error>.Continuation.BufferingPolicy
    /// The iterator.
    public typealias AsyncIterator = Iterator

    private let bufferingPolicy: BufferingPolicy
    private let start:
        @Sendable (
            _ onError: @escaping @Sendable (any Error) -> Void,
            _ onChange: @escaping @Sendable (Element) -> Void
        ) -> AnyDatabaseCancellable

    init(
        bufferingPolicy: BufferingPolicy,
        start: @escaping @Sendable (
            _ onError: @escaping @Sendable (any Error) -> Void,
            _ onChange: @escaping @Sendable (Element) -> Void
        ) -> AnyDatabaseCancellable
    ) {
        self.bufferingPolicy = bufferingPolicy
        self.start = start
    }

    /// Starts an observation.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        let cancellable = start(
            { error in continuation.finish(throwing: error) },
            { value in continuation.yield(value) })
        // Weak: the iterator owns the cancellable, so that the observation
        // ends when the iteration does, even if nothing finishes the stream.
        continuation.onTermination = { [weak cancellable] _ in cancellable?.cancel() }
        return Iterator(base: stream.makeAsyncIterator(), cancellable: cancellable)
    }

    /// Gets the values of one observation.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, any Error>.AsyncIterator
        let cancellable: AnyDatabaseCancellable

        /// The next value; nil after cancellation.
        public mutating func next() async throws -> Element? {
            try await base.next()
        }
    }
}
