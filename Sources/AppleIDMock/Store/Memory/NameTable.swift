/// Strings that many grants repeat (client ids, app groups, users, return URLs, grant groups),
/// each kept once under a number and counted, so a packed grant holds 4 bytes per name and a name
/// no grant uses any more is dropped. Number 0 stands for no name.
struct NameTable {
    /// How many distinct names it holds at most; a grant that would need more is stored unpacked.
    static let capacity = 1 << 20

    private var numbers: [String: UInt32] = [:]
    private var names: [String] = [""]
    private var uses: [UInt32] = [0]
    private var free: [UInt32] = []

    /// How many distinct names are held.
    var count: Int { numbers.count }

    /// The number of `name` (`0` for `nil`), counted as used once more; `nil` when the table is full.
    mutating func retain(_ name: String?) -> UInt32? {
        guard let name else { return 0 }
        if let number = numbers[name] {
            uses[Int(number)] += 1
            return number
        }
        guard numbers.count < Self.capacity else { return nil }
        let number: UInt32
        if let reused = free.popLast() {
            number = reused
            names[Int(number)] = name
            uses[Int(number)] = 1
        } else {
            number = UInt32(names.count)
            names.append(name)
            uses.append(1)
        }
        numbers[name] = number
        return number
    }

    /// Counts one use of `number` less, dropping the name when nothing uses it.
    mutating func release(_ number: UInt32) {
        guard number != 0 else { return }
        uses[Int(number)] -= 1
        guard uses[Int(number)] == 0 else { return }
        numbers[names[Int(number)]] = nil
        names[Int(number)] = ""
        free.append(number)
    }

    /// The name of `number` (`nil` for 0).
    func name(_ number: UInt32) -> String? {
        number == 0 ? nil : names[Int(number)]
    }

    /// The number of `name`, if it is held (not counted as a use).
    func number(of name: String) -> UInt32? {
        numbers[name]
    }
}
