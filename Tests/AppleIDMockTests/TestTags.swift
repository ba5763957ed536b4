import Testing

extension Tag {
    /// Suites that start the server (or a browser, PostgreSQL, Python) as another process: slower,
    /// and the ones a busy machine can disturb. CI runs them as a step of their own, after the fast
    /// in-process suites (`.ci/run`). Such a suite's name also holds `Live` or `Browser`: swift
    /// test 6.3 cannot select by tag yet, so CI selects by name (`--filter 'Live|Browser'`).
    @Tag static var live: Self
}
