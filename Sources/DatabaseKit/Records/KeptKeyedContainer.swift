/// The keyed container a coder keeps for the next record of the same type.
///
/// `KeyedDecodingContainer` and `KeyedEncodingContainer` are generic over the
/// record's coding keys, which a coder only learns as the type parameter of
/// `container(keyedBy:)`. Code generic over the keys, as a coder's is, looks
/// up the metadata of `KeyedDecodingContainer<Key>` to copy a value of that
/// type: about 330 instructions per record. So the container is kept in a
/// closure made where that metadata was at hand (``TypedKeptKeyedContainer``),
/// and handed back by calling it: the copy goes straight into the coder's
/// result, with the metadata that the closure's context carries.
class KeptKeyedContainer {
    /// The coding key type the container was made for.
    let keyType: ObjectIdentifier

    fileprivate init(keyType: ObjectIdentifier) {
        self.keyType = keyType
    }

    /// Keeps `container`, made for the coding keys `Key`.
    static func keeping<Container, Key: CodingKey>(_ container: Container, keyedBy key: Key.Type) -> KeptKeyedContainer {
        TypedKeptKeyedContainer(container, keyType: ObjectIdentifier(Key.self))
    }

    /// The kept container; `Container` must be the type it was kept as,
    /// which callers ensure by testing ``keyType`` first.
    @inline(__always)
    final func container<Container>(as type: Container.Type) -> Container {
        // The closure is stored at the same offset whatever `Container` is,
        // so reading it needs no metadata.
        unsafeDowncast(self, to: TypedKeptKeyedContainer<Container>.self).copy()
    }
}

/// A kept container of one type.
private final class TypedKeptKeyedContainer<Container>: KeptKeyedContainer {
    /// Returns a copy of the container.
    let copy: () -> Container

    init(_ container: Container, keyType: ObjectIdentifier) {
        copy = { container }
        super.init(keyType: keyType)
    }
}
