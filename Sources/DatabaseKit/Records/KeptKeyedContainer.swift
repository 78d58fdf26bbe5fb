/// The keyed container a coder keeps for the next record of the same type.
///
/// `KeyedDecodingContainer` and `KeyedEncodingContainer` are generic over the
/// record's coding keys, which a coder only learns as the type parameter of
/// `container(keyedBy:)`: the container is kept in memory bound to its own
/// type, and read back as that type when the same key type asks again. A
/// container handed back costs one metadata lookup; a new one, the lookups
/// of the container and of the standard library's box, and the box itself.
final class KeptKeyedContainer {
    /// The coding key type the container was made for.
    let keyType: ObjectIdentifier
    private let storage: UnsafeMutableRawPointer
    private let deinitialize: (UnsafeMutableRawPointer) -> Void

    init<Container, Key: CodingKey>(_ container: Container, keyedBy key: Key.Type) {
        keyType = ObjectIdentifier(Key.self)
        storage = .allocate(byteCount: MemoryLayout<Container>.size, alignment: MemoryLayout<Container>.alignment)
        storage.initializeMemory(as: Container.self, to: container)
        deinitialize = { $0.assumingMemoryBound(to: Container.self).deinitialize(count: 1) }
    }

    /// The kept container; `Container` must be the type it was kept as,
    /// which callers ensure by testing ``keyType`` first.
    @inline(__always)
    func container<Container>(as type: Container.Type) -> Container {
        storage.assumingMemoryBound(to: Container.self).pointee
    }

    deinit {
        deinitialize(storage)
        storage.deallocate()
    }
}
