// Types of apple-id-mock's Sign in with Apple JS (appleid.auth.js in this folder), written for the
// apple-id-mock project. The API is the one of Apple's appleid.auth.js, so pages written against
// Apple's script type-check against this file too.

declare namespace AppleID {
  /** What `init` and `signIn` take (or the `appleid-signin-*` meta tags give). */
  interface ClientConfigI {
    /** The Services ID (`client_id`). */
    clientId: string;
    /** A registered Return URL; in popup mode the result is posted to its origin. */
    redirectURI: string;
    /** `"name"`, `"email"` or `"name email"`. */
    scope?: string;
    /** Echoed back in `authorization.state`. */
    state?: string;
    /** Copied into the id_token's `nonce` claim. */
    nonce?: string;
    /** `true`: popup with `response_mode=web_message`; `false` (default): the page navigates (`form_post`). */
    usePopup?: boolean;
  }

  /** The authorization in a successful answer. */
  interface AuthorizationI {
    code: string;
    id_token: string;
    state?: string;
  }

  /** The user's name and email: only on the first authorization, and only what was asked for. */
  interface UserI {
    email?: string;
    name?: NameI;
  }

  interface NameI {
    firstName?: string;
    lastName?: string;
  }

  /** What `signIn()` resolves to in popup mode. */
  interface SignInResponseI {
    authorization: AuthorizationI;
    user?: UserI;
  }

  /**
   * What `signIn()` rejects with in popup mode: `user_cancelled_authorize` (Cancel on the sign-in
   * page), `popup_closed_by_user`, `popup_blocked_by_browser`, `user_trigger_new_signin_flow`.
   */
  interface SignInErrorI {
    error: "user_cancelled_authorize" | "popup_closed_by_user" | "popup_blocked_by_browser" | "user_trigger_new_signin_flow" | string;
  }

  /** `detail` of the `AppleIDSignInOnSuccess` event on `document`. */
  interface SignInSuccessDetailI {
    data: SignInResponseI;
  }

  interface AuthI {
    /** Configures the SDK and renders the button into `#appleid-signin` when the page has one. Throws `TypeError` for a bad configuration. */
    init(config: ClientConfigI): void;
    /** Starts a sign-in (options override `init`'s). In redirect mode the page navigates and the promise never settles. */
    signIn(signInConfig?: ClientConfigI): Promise<SignInResponseI>;
    /** (Re)renders the button into `#appleid-signin` from its `data-color`, `data-border`, `data-type`, `data-border-radius`, `data-width`, `data-height`, `data-mode`. */
    renderButton(): void;
    /** `true` in apple-id-mock's script (absent in Apple's). */
    readonly isAppleIDMock?: boolean;
  }

  const auth: AuthI;
}

interface DocumentEventMap {
  AppleIDSignInOnSuccess: CustomEvent<AppleID.SignInSuccessDetailI>;
  AppleIDSignInOnFailure: CustomEvent<AppleID.SignInErrorI>;
}

interface Window {
  AppleID: typeof AppleID;
}
