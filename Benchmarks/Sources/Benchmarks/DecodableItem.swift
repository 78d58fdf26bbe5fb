/// The struct fetched through `Decodable`.
struct DecodableItem: Decodable, Sendable {
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int

    static func checksum(_ items: [DecodableItem]) -> Int64 {
        items.reduce(0) { sum, item in
            sum &+ Int64(item.i0 + item.i1 + item.i2 + item.i3 + item.i4 + item.i5 + item.i6 + item.i7 + item.i8 + item.i9)
        }
    }
}
