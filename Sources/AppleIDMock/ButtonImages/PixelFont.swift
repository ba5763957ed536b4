/// The mock's own bitmap font for the button labels: the letters of "Sign in with Apple" and
/// "Continue with Apple" on a grid 5 cells wide and 9 high (cap height 7 cells, descenders 2),
/// drawn at any size with exact per-pixel coverage of its cells.
enum PixelFont {
    /// Rows of the grid (`#` filled), top to bottom.
    private static let glyphs: [Character: [String]] = [
        "A": [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#", ".....", "....."],
        "C": [".###.", "#...#", "#....", "#....", "#....", "#...#", ".###.", ".....", "....."],
        "S": [".###.", "#...#", "#....", ".###.", "....#", "#...#", ".###.", ".....", "....."],
        "e": [".....", ".....", ".###.", "#...#", "#####", "#....", ".###.", ".....", "....."],
        "g": [".....", ".....", ".####", "#...#", "#...#", "#...#", ".####", "....#", ".###."],
        "h": ["#....", "#....", "#.##.", "##..#", "#...#", "#...#", "#...#", ".....", "....."],
        "i": [".#...", ".....", "##...", ".#...", ".#...", ".#...", "###..", ".....", "....."],
        "l": ["##...", ".#...", ".#...", ".#...", ".#...", ".#...", "###..", ".....", "....."],
        "n": [".....", ".....", "#.##.", "##..#", "#...#", "#...#", "#...#", ".....", "....."],
        "o": [".....", ".....", ".###.", "#...#", "#...#", "#...#", ".###.", ".....", "....."],
        "p": [".....", ".....", "####.", "#...#", "#...#", "#...#", "####.", "#....", "#...."],
        "t": [".#...", ".#...", "####.", ".#...", ".#...", ".#..#", "..##.", ".....", "....."],
        "u": [".....", ".....", "#...#", "#...#", "#...#", "#..##", ".##.#", ".....", "....."],
        "w": [".....", ".....", "#...#", "#...#", "#.#.#", "#.#.#", ".#.#.", ".....", "....."],
    ]

    /// Cells of the cap height.
    static let capCells = 7.0
    /// Cells between letters, and the width of a space.
    private static let letterSpacing = 1
    private static let spaceWidth = 3

    /// Whether every character of `text` can be drawn.
    static func canDraw(_ text: String) -> Bool {
        text.allSatisfy { $0 == " " || glyphs[$0] != nil }
    }

    /// The width of `text` in cells.
    static func width(of text: String) -> Int {
        var total = 0
        for (index, character) in text.enumerated() {
            if index > 0 { total += letterSpacing }
            total += advance(character)
        }
        return total
    }

    /// Paints `text` in `colour` with its top-left at (`originX`, `originY`), each cell `cell`
    /// pixels square. Each pixel is painted once, by the area of the filled cells it overlaps.
    static func paint(
        _ text: String, colour: Raster.Colour, into raster: inout Raster, originX: Double, originY: Double,
        cell: Double
    ) {
        let grid = cells(of: text)
        guard cell > 0, let columns = grid.first?.count, columns > 0 else { return }
        let box = (originX, originY, originX + Double(columns) * cell, originY + Double(grid.count) * cell)
        raster.paint(colour, in: box) { px, py in
            let firstColumn = max(0, Int(((px - 0.5 - originX) / cell).rounded(.down)))
            let lastColumn = min(columns - 1, Int(((px + 0.5 - originX) / cell).rounded(.down)))
            let firstRow = max(0, Int(((py - 0.5 - originY) / cell).rounded(.down)))
            let lastRow = min(grid.count - 1, Int(((py + 0.5 - originY) / cell).rounded(.down)))
            guard firstColumn <= lastColumn, firstRow <= lastRow else { return 0 }
            var area = 0.0
            for row in firstRow...lastRow {
                let top = originY + Double(row) * cell
                let vertical = overlap(py - 0.5, py + 0.5, top, top + cell)
                for column in firstColumn...lastColumn where grid[row][column] {
                    let left = originX + Double(column) * cell
                    area += vertical * overlap(px - 0.5, px + 0.5, left, left + cell)
                }
            }
            return area
        }
    }

    /// The filled cells of `text`, row by row.
    private static func cells(of text: String) -> [[Bool]] {
        var grid = [[Bool]](repeating: [], count: 9)
        for (index, character) in text.enumerated() {
            let width = advance(character)
            let spacing = index > 0 ? letterSpacing : 0
            let rows = glyphs[character]
            for row in 0..<9 {
                grid[row] += [Bool](repeating: false, count: spacing)
                let line = rows.map { Array($0[row]) } ?? []
                grid[row] += (0..<width).map { $0 < line.count && line[$0] == "#" }
            }
        }
        return grid
    }

    /// A glyph's width in cells: up to its last filled column.
    private static func advance(_ character: Character) -> Int {
        guard let rows = glyphs[character] else { return spaceWidth }
        return rows.map { row in (Array(row).lastIndex(of: "#") ?? -1) + 1 }.max() ?? spaceWidth
    }

    /// The length of the overlap of two intervals.
    private static func overlap(_ a0: Double, _ a1: Double, _ b0: Double, _ b1: Double) -> Double {
        max(0, min(a1, b1) - max(a0, b0))
    }
}
