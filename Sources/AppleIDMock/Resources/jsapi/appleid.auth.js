/*
 * Sign in with Apple JS for apple-id-mock.
 *
 * Written for the apple-id-mock project (it is not Apple's file): it offers the API of Apple's
 * appleid.auth.js (AppleID.auth.init, signIn, renderButton, the appleid-signin-* meta tags, the
 * #appleid-signin button, the AppleIDSignInOnSuccess / AppleIDSignInOnFailure events) and talks to
 * the server that served it. Served from appleid.cdn-apple.com, it talks to appleid.apple.com, as
 * Apple's does. Types: appleid.auth.d.ts in the same folder.
 *
 * Popup mode (usePopup: true) opens /auth/authorize with response_mode=web_message and waits for
 * the page's message: a JSON string {"method":"oauthDone","data":{...}} posted from the server's
 * origin (messages from any other origin are ignored). Served under the mock's namespace prefix
 * (/ns/{name}/appleauth/…), it opens its pages under that prefix too (/ns/{name}/auth/authorize).
 */
(function (window, document) {
  "use strict";

  if (window.AppleID && window.AppleID.auth && window.AppleID.auth.isAppleIDMock) return; // loaded twice

  /** The SDK version whose behaviour this follows (sent as `v`). */
  var VERSION = "1.5.6";
  var POPUP_NAME = "AppleAuthentication";
  var POPUP_SIZE = 700;
  var POLL_MILLISECONDS = 300;
  var EVENT_SUCCESS = "AppleIDSignInOnSuccess";
  var EVENT_FAILURE = "AppleIDSignInOnFailure";
  var META = {
    clientId: "appleid-signin-client-id",
    scope: "appleid-signin-scope",
    redirectURI: "appleid-signin-redirect-uri",
    state: "appleid-signin-state",
    nonce: "appleid-signin-nonce",
    usePopup: "appleid-signin-use-popup",
  };

  /** Where this script was served from, or `null` (an inline copy). */
  var scriptURL = (function () {
    var script = document.currentScript;
    try {
      return script && script.src ? new URL(script.src) : null;
    } catch (error) {
      return null;
    }
  })();

  /** The origin of the authorization server: the one that served this script. */
  var authOrigin = (function () {
    var url;
    try {
      url = scriptURL || new URL(window.location.href);
    } catch (error) {
      return window.location.origin;
    }
    // Apple's CDN host serves the script; Apple's sign-in host answers.
    if (url.hostname === "appleid.cdn-apple.com") {
      return url.protocol + "//appleid.apple.com" + (url.port ? ":" + url.port : "");
    }
    return url.origin;
  })();

  /**
   * The mock's namespace prefix the script was served under (`/ns/{name}` for
   * /ns/{name}/appleauth/…), which the authorization pages then carry; empty otherwise. Messages
   * are still checked against the origin only.
   */
  var authPrefix = (function () {
    var match = scriptURL && /^\/ns\/([A-Za-z0-9._-]{1,64})\/appleauth\//.exec(scriptURL.pathname);
    return match ? "/ns/" + match[1] : "";
  })();

  var config = null; // {clientId, scope, redirectURI, state, nonce, usePopup}
  var configSource = 0; // 1: init(), 2: meta tags
  var pending = null; // the sign-in waiting for its popup: {popup, resolve, reject, timer, closedPolls}

  function toBoolean(value) {
    return value === true || value === "true";
  }

  function checkConfig(options) {
    if (!options || typeof options !== "object") throw new TypeError("AppleID.auth.init: expected a configuration object");
    if (typeof options.clientId !== "string" || !options.clientId) {
      throw new TypeError('AppleID.auth.init: "clientId" must be a non-empty string');
    }
    if (typeof options.redirectURI !== "string" || !options.redirectURI) {
      throw new TypeError('AppleID.auth.init: "redirectURI" must be a non-empty string');
    }
    ["scope", "state", "nonce"].forEach(function (name) {
      if (options[name] !== undefined && typeof options[name] !== "string") {
        throw new TypeError('AppleID.auth.init: "' + name + '" must be a string');
      }
    });
    return {
      clientId: options.clientId,
      scope: options.scope,
      redirectURI: options.redirectURI,
      state: options.state,
      nonce: options.nonce,
      usePopup: toBoolean(options.usePopup),
    };
  }

  function readMetaTags() {
    var found = {};
    var any = false;
    Object.keys(META).forEach(function (key) {
      var tag = document.querySelector('meta[name="' + META[key] + '"]');
      if (tag && tag.hasAttribute("content")) {
        found[key] = tag.getAttribute("content");
        any = true;
      }
    });
    return any ? found : null;
  }

  function init(options) {
    config = checkConfig(options);
    configSource = 1;
    renderIfPresent();
  }

  function randomUUID() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    var hex = Array.prototype.map.call(bytes, function (b) {
      return (b + 0x100).toString(16).slice(1);
    }).join("");
    return hex.slice(0, 8) + "-" + hex.slice(8, 12) + "-" + hex.slice(12, 16) + "-" + hex.slice(16, 20) + "-" + hex.slice(20);
  }

  function authorizeURL(settings, startedBy) {
    var query = new URLSearchParams();
    query.append("client_id", settings.clientId);
    query.append("redirect_uri", settings.redirectURI);
    query.append("response_type", "code id_token");
    if (settings.state) query.append("state", settings.state);
    if (settings.scope) query.append("scope", settings.scope);
    if (settings.nonce) query.append("nonce", settings.nonce);
    query.append("response_mode", settings.usePopup ? "web_message" : "form_post");
    if (settings.usePopup) query.append("frame_id", randomUUID());
    query.append("m", String(configSource || 1) + String(startedBy));
    query.append("v", VERSION);
    // URLSearchParams writes spaces as "+": Apple's scope is written "name%20email".
    return authOrigin + authPrefix + "/auth/authorize?" + query.toString().replace(/\+/g, "%20");
  }

  function dispatch(name, detail) {
    var event;
    try {
      event = new CustomEvent(name, { detail: detail });
    } catch (error) {
      event = document.createEvent("CustomEvent");
      event.initCustomEvent(name, false, false, detail);
    }
    document.dispatchEvent(event);
  }

  function finish(flow, data) {
    if (pending !== flow) return;
    pending = null;
    window.clearInterval(flow.timer);
    if (data && typeof data === "object" && "error" in data) {
      var failure = { error: data.error };
      dispatch(EVENT_FAILURE, failure);
      flow.reject(failure);
    } else {
      dispatch(EVENT_SUCCESS, { data: data });
      flow.resolve(data);
    }
  }

  function onMessage(event) {
    if (event.origin !== authOrigin || !pending) return;
    var message;
    try {
      message = typeof event.data === "string" ? JSON.parse(event.data) : null;
    } catch (error) {
      return;
    }
    if (!message || message.method !== "oauthDone") return;
    var flow = pending;
    finish(flow, message.data || { error: "invalid_response" });
    try {
      if (flow.popup && !flow.popup.closed) flow.popup.close();
    } catch (error) {
      // a popup that navigated away cannot always be closed from here
    }
  }

  function poll(flow) {
    var closed;
    try {
      closed = flow.popup.closed;
    } catch (error) {
      closed = false;
    }
    if (!closed) {
      flow.closedPolls = 0;
      return;
    }
    // One more round for a message posted just before the page closed itself.
    flow.closedPolls += 1;
    if (flow.closedPolls >= 2) finish(flow, { error: "popup_closed_by_user" });
  }

  function popupFeatures() {
    var left = (window.screenX || 0) + Math.max(0, ((window.outerWidth || POPUP_SIZE) - POPUP_SIZE) / 2);
    var top = (window.screenY || 0) + Math.max(0, ((window.outerHeight || POPUP_SIZE) - POPUP_SIZE) / 2);
    return "width=" + POPUP_SIZE + ",height=" + POPUP_SIZE + ",left=" + Math.round(left) + ",top=" + Math.round(top) +
      ",resizable=yes,scrollbars=yes";
  }

  function signIn(signInConfig, startedBy) {
    var settings;
    try {
      if (signInConfig) settings = checkConfig(Object.assign({}, config || {}, signInConfig));
      else if (config) settings = config;
      else throw new Error("AppleID.auth.signIn: call AppleID.auth.init (or add the appleid-signin-* meta tags) first");
    } catch (error) {
      return Promise.reject(error);
    }
    var url = authorizeURL(settings, startedBy || 1);
    if (!settings.usePopup) {
      window.location.assign(url);
      return new Promise(function () {}); // the page navigates away
    }
    return new Promise(function (resolve, reject) {
      if (pending) finish(pending, { error: "user_trigger_new_signin_flow" });
      // The same name reuses a popup still open from an earlier sign-in.
      var popup = window.open(url, POPUP_NAME, popupFeatures());
      if (!popup) {
        var failure = { error: "popup_blocked_by_browser" };
        dispatch(EVENT_FAILURE, failure);
        reject(failure);
        return;
      }
      var flow = { popup: popup, resolve: resolve, reject: reject, closedPolls: 0, timer: 0 };
      flow.timer = window.setInterval(function () {
        poll(flow);
      }, POLL_MILLISECONDS);
      pending = flow;
      try {
        popup.focus();
      } catch (error) {
        // focus is best effort
      }
    });
  }

  // The button: Apple's look (logo and label), drawn from the data-* attributes of #appleid-signin.

  var SVG = "http://www.w3.org/2000/svg";
  var LABELS = {
    "sign in": "Sign in with Apple",
    "sign-in": "Sign in with Apple",
    signin: "Sign in with Apple",
    continue: "Continue with Apple",
    "sign up": "Sign up with Apple",
    "sign-up": "Sign up with Apple",
    signup: "Sign up with Apple",
  };

  function logo(color, size) {
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("width", String(size));
    svg.setAttribute("height", String(size));
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    // Drawn for this project: an apple with a bite on the right and a leaf.
    var shapes = [
      "M12 7.6C10.6 6.4 7.4 6.4 5.9 8.9 4.3 11.6 5.3 16.3 7.6 19.2c1 1.3 2.2 2 3.4 1.4.6-.3 1.4-.3 2 0 1.2.6 2.4-.1 3.4-1.4.9-1.2 1.6-2.6 2-3.9-1.7-.7-2.7-2.3-2.6-4.1.1-1.4.8-2.5 1.8-3.1C16.3 6.4 13.8 6.4 12 7.6z",
      "M12.2 6.7c-.1-1.7 1.2-3.3 3-3.6.2 1.8-1.2 3.5-3 3.6z",
    ];
    shapes.forEach(function (d) {
      var path = document.createElementNS(SVG, "path");
      path.setAttribute("d", d);
      path.setAttribute("fill", color);
      svg.appendChild(path);
    });
    return svg;
  }

  function cssSize(value, fallback) {
    if (value === null || value === undefined || value === "") return fallback;
    if (/^\d+(\.\d+)?$/.test(value)) return value + "px";
    if (/^\d+(\.\d+)?(px|%)$/.test(value)) return value;
    return fallback;
  }

  function renderButton() {
    var container = document.getElementById("appleid-signin");
    if (!container) return;
    var data = container.dataset;
    var white = (data.color || "black").toLowerCase() === "white";
    var border = data.border === undefined ? false : toBoolean(data.border);
    var type = (data.type || "sign in").toLowerCase();
    var label = LABELS[type] || LABELS["sign in"];
    var mode = (data.mode || "center-align").toLowerCase();
    var radius = Math.min(50, Math.max(0, parseFloat(data.borderRadius === undefined ? "15" : data.borderRadius) || 0));
    var width = cssSize(data.width, "100%");
    var height = cssSize(data.height, container.style.height ? "100%" : "40px");
    var foreground = white ? "#000" : "#fff";

    var button = document.createElement("div");
    button.setAttribute("role", "button");
    button.setAttribute("tabindex", "0");
    button.setAttribute("aria-label", label);
    button.setAttribute("data-appleid-button", type);
    var style = button.style;
    style.boxSizing = "border-box";
    style.display = "flex";
    style.alignItems = "center";
    style.justifyContent = mode === "left-align" ? "flex-start" : "center";
    style.gap = "0.15em";
    style.width = mode === "logo-only" && !data.width ? height : width;
    style.height = height;
    style.minWidth = mode === "logo-only" ? "30px" : "130px";
    style.minHeight = "30px";
    style.maxHeight = "64px";
    style.padding = mode === "left-align" ? "0 0.8em" : "0 0.5em";
    style.background = white ? "#fff" : "#000";
    style.color = foreground;
    style.border = border ? "1px solid " + (white ? "#000" : "#fff") : "1px solid transparent";
    style.cursor = "pointer";
    style.userSelect = "none";
    style.fontFamily = '-apple-system, BlinkMacSystemFont, "SF Pro Text", "Helvetica Neue", Helvetica, Arial, sans-serif';
    style.fontWeight = "500";
    style.letterSpacing = "0.01em";
    style.whiteSpace = "nowrap";
    style.overflow = "hidden";

    container.replaceChildren(button);
    var pixels = button.getBoundingClientRect().height || 40;
    style.borderRadius = (pixels * radius) / 100 + "px";
    style.fontSize = Math.round(pixels * 0.43) + "px";
    button.appendChild(logo(foreground, Math.round(pixels * 0.5)));
    if (mode !== "logo-only") {
      var text = document.createElement("span");
      text.textContent = label;
      button.appendChild(text);
    }

    function start(event) {
      if (event) event.preventDefault();
      // Failures reach the page as AppleIDSignInOnFailure events.
      signIn(undefined, 2).catch(function () {});
    }
    button.addEventListener("click", start);
    button.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") start(event);
    });
  }

  function renderIfPresent() {
    if (document.getElementById("appleid-signin")) renderButton();
  }

  function onReady() {
    if (!config) {
      var meta = readMetaTags();
      if (meta && meta.clientId) {
        try {
          config = checkConfig(meta);
          configSource = 2;
        } catch (error) {
          if (window.console) window.console.warn(String(error && error.message ? error.message : error));
        }
      }
    }
    if (config) renderIfPresent();
  }

  window.addEventListener("message", onMessage);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", onReady);
  else onReady();

  window.AppleID = window.AppleID || {};
  window.AppleID.auth = {
    init: init,
    signIn: function (signInConfig) {
      return signIn(signInConfig, 1);
    },
    renderButton: renderButton,
    isAppleIDMock: true,
  };
})(window, document);
