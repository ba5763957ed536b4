// Writes a subset of ICU's common data package (the `icudtNNl.dat` format: a header, a table of
// contents sorted by name, then the items) with only what this server can use: time zones, the
// root and English locale data, character properties, normalization, IDNA and break iteration.
// Left out: other languages' locale data and display names, collation, character set converters,
// transliteration, number spell-out and the break iterators' dictionaries (CJK and Thai words).
// The Dockerfile links the result in place of the toolchain's 34 MB package (Sources/CICUData).
//
//   swift scripts/container/icu-data-subset.swift FULL.dat SUBSET.dat
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: icu-data-subset.swift FULL.dat SUBSET.dat\n".utf8))
    exit(2)
}
let full = [UInt8](try Data(contentsOf: URL(fileURLWithPath: arguments[1])))

func u16(_ at: Int) -> Int { Int(full[at]) | Int(full[at + 1]) << 8 }
func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("icu-data-subset: \(message)\n".utf8))
    exit(1)
}

// The header: its size, the magic 0xda27, and a data format of "CmnD" (a common data package).
let headerSize = u16(0)
guard full.count > headerSize + 4, full[2] == 0xda, full[3] == 0x27,
    full[12..<16].elementsEqual("CmnD".utf8), full[8] == 0
else { fail("\(arguments[1]) is not a little-endian ICU common data package") }

// The table of contents: a count, then (name offset, data offset) pairs, both from its start.
let toc = headerSize
let count = u32(toc)
struct Item { var name: String; var start: Int; var end: Int }
var items: [Item] = []
for index in 0..<count {
    let nameAt = toc + u32(toc + 4 + 8 * index)
    guard let nameEnd = full[nameAt...].firstIndex(of: 0) else { fail("an item's name has no end") }
    let start = toc + u32(toc + 8 + 8 * index)
    items.append(Item(name: String(decoding: full[nameAt..<nameEnd], as: UTF8.self), start: start, end: full.count))
}
for index in items.indices.dropLast() { items[index].end = items[index + 1].start }

/// Whether the server can use an item: `icudt76l/zoneinfo64.res`, `icudt76l/brkitr/word.brk`...
func keep(_ name: String) -> Bool {
    let parts = name.split(separator: "/").dropFirst()
    guard let file = parts.last else { return false }
    let tree = parts.count > 1 ? String(parts.first!) : ""
    if ["coll", "curr", "lang", "rbnf", "region", "translit", "unit", "zone"].contains(tree) { return false }
    let stem = file.split(separator: ".").first.map(String.init) ?? ""
    if file.hasSuffix(".cnv") || file.hasSuffix(".dict") || file == "unames.icu" { return false }
    // Line breaking for Chinese and Japanese text, and other languages' rules.
    if stem.contains("_cj") || stem.contains("phrase") || stem.contains("loose") { return false }
    if file.hasSuffix(".brk") && stem.contains("_") && stem != "line_normal" && stem != "word_POSIX" { return false }
    // A locale's bundle (`de.res`, `pt_BR.res`): only the root's and English's stay.
    let isLocale = stem.range(of: #"^[a-z]{2,3}(_[A-Za-z0-9_]+)?$"#, options: .regularExpression) != nil
    if file.hasSuffix(".res") && isLocale { return ["en", "en_US", "en_US_POSIX"].contains(stem) }
    return true
}
let kept = items.filter { keep($0.name) }
guard kept.contains(where: { $0.name.hasSuffix("/zoneinfo64.res") }) else { fail("no zoneinfo64.res in \(arguments[1])") }

// The same header; a new table of contents; each item aligned to 16 bytes, as ICU's own tools do.
func aligned(_ value: Int) -> Int { (value + 15) & ~15 }
var names: [UInt8] = []
var nameOffsets: [Int] = []
let namesStart = 4 + 8 * kept.count
for item in kept {
    nameOffsets.append(namesStart + names.count)
    names += Array(item.name.utf8) + [0]
}
var dataOffset = aligned(namesStart + names.count)
var out = Array(full[0..<headerSize])
func append32(_ value: Int) { for shift in [0, 8, 16, 24] { out.append(UInt8((value >> shift) & 0xff)) } }
append32(kept.count)
var dataOffsets: [Int] = []
for item in kept {
    dataOffsets.append(dataOffset)
    dataOffset = aligned(dataOffset + item.end - item.start)
}
for (name, data) in zip(nameOffsets, dataOffsets) {
    append32(name)
    append32(data)
}
out += names
for (item, offset) in zip(kept, dataOffsets) {
    out += [UInt8](repeating: 0, count: toc + offset - out.count)
    out += full[item.start..<item.end]
}
try Data(out).write(to: URL(fileURLWithPath: arguments[2]))
print("icu-data-subset: \(kept.count) of \(count) items, \(out.count) of \(full.count) bytes")
