/// A reset or scenario switch landed between the moment a request read the state in force and its
/// step on the session: the step did nothing. `/auth/*` endpoints run the request again in the new
/// state (so a code the reset wiped gets Apple's `invalid_grant`); the control plane answers 409.
struct SessionChanged: Error, Sendable, CustomStringConvertible {
    var description: String { "the scenario was reset or switched while this request ran" }
}
