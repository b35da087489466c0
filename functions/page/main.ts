import "./jitless"; // first: before any schema is built
import {
  ApiError,
  type ClusterPage,
  type EventView,
  loadPageConfig,
  type Me,
  type OperatorVerb,
  StatusApi,
} from "./api";
import { entraSignIn, keySignIn, type SignIn } from "./auth";
import { h, replace } from "./dom";
import { eventPage } from "./views/eventPage";
import { type OperatorUi, operatorDialog } from "./views/operator";
import { overview } from "./views/overview";

/**
 * The status page: sign in, then poll the status API (conditional GETs, so an unchanged state
 * costs a 304) and redraw the current view when its data changed. Routes live in the hash:
 * #/ is the overview, #/events/<cluster>/<eventId> an event.
 */

const POLL_MS = 1500;
const main = document.getElementById("main") as HTMLElement;
const who = document.getElementById("who") as HTMLElement;
const freshness = document.getElementById("freshness") as HTMLElement;

let signIn: SignIn;
let api: StatusApi;
let me: Me | null = null;
let lastRendered = "";
let lastOk = 0;
let timer: number | undefined;

type Route = { view: "overview" } | { view: "event"; cluster: string; eventId: string };

function route(): Route {
  const m = /^#\/events\/([^/]+)\/([^/]+)$/.exec(location.hash);
  if (m)
    return {
      view: "event",
      cluster: decodeURIComponent(m[1] as string),
      eventId: decodeURIComponent(m[2] as string),
    };
  return { view: "overview" };
}

const dialog = operatorDialog(
  async (
    verb: OperatorVerb,
    e: EventView,
    reason: string,
    ttlMinutes: number,
    replace: boolean,
  ) => {
    await api.act(
      verb,
      e.eventId,
      e.cluster,
      verb === "release" ? { reason } : { reason, ttlMinutes, ...(replace ? { replace } : {}) },
    );
    lastRendered = "";
    await refresh();
  },
);
document.body.appendChild(dialog.element);
const ops = (): OperatorUi => ({
  canOperate: me?.roles.includes("operator") ?? false,
  open: dialog.open,
});

async function loadOverview() {
  const status = await api.status();
  const details: ClusterPage[] = await Promise.all(
    status.clusters.map((c) => api.cluster(c.cluster)),
  );
  const activeEvents = status.events;
  return { now: Date.parse(status.now), clusters: details, activeEvents };
}

async function refresh(): Promise<void> {
  const r = route();
  try {
    if (r.view === "overview") {
      const data = await loadOverview();
      draw(JSON.stringify(data), () => overview(data, ops()));
    } else {
      const e = await api.event(r.eventId, r.cluster);
      draw(JSON.stringify(e), () => eventPage(e, Date.parse(e.now), ops()));
    }
    lastOk = Date.now();
    freshness.textContent = "Live: updated just now";
    freshness.className = "fresh";
  } catch (err) {
    if (
      err instanceof ApiError &&
      (err.status === 401 || err.status === 403) &&
      r.view === "overview"
    ) {
      await signIn.signOut();
      return showSignIn(err.message);
    }
    if (err instanceof ApiError && err.status === 404 && r.view === "event") {
      draw(`404${r.eventId}`, () =>
        h(
          "div",
          {},
          h("p", { role: "alert" }, err.message),
          h("a", { href: "#/" }, "← All clusters"),
        ),
      );
      return;
    }
    freshness.textContent = `Not updating: ${(err as Error).message}`;
    freshness.className = "stale";
  }
}

/** Redraws only when the data changed, so focus, selection and scroll survive the polling. */
function draw(signature: string, build: () => HTMLElement) {
  if (signature === lastRendered) return;
  lastRendered = signature;
  replace(main, build());
}

function schedule() {
  window.clearTimeout(timer);
  timer = window.setTimeout(async () => {
    if (!dialog.element.open) await refresh();
    if (lastOk && Date.now() - lastOk > 3 * POLL_MS) {
      freshness.textContent = `Last update ${Math.round((Date.now() - lastOk) / 1000)} s ago`;
      freshness.className = "stale";
    }
    schedule();
  }, POLL_MS);
}

function showWho() {
  if (!me) return who.replaceChildren();
  const role = me.roles.includes("operator") ? "operator" : "reader";
  who.replaceChildren(
    h("span", {}, `Signed in as ${me.principal} (${role})`),
    " ",
    h(
      "button",
      {
        type: "button",
        id: "sign-out",
        onclick: () => void signIn.signOut().then(() => showSignIn()),
      },
      "Sign out",
    ),
  );
}

function showSignIn(message?: string) {
  window.clearTimeout(timer);
  me = null;
  lastRendered = "";
  showWho();
  freshness.textContent = "";
  const error = h("p", { class: "error", role: "alert", id: "sign-in-error" }, message ?? "");
  if (signIn.mode === "entra") {
    replace(
      main,
      h(
        "section",
        { class: "sign-in" },
        h("h2", {}, "Sign in"),
        h(
          "p",
          {},
          "Sign in with your organisation account. You need the Quiesce.Reader or Quiesce.Operator role on the coordinator's app.",
        ),
        error,
        h(
          "button",
          { type: "button", id: "sign-in", onclick: () => void signIn.signIn() },
          "Sign in with Microsoft",
        ),
      ),
    );
    return;
  }
  const key = h("input", {
    id: "key",
    name: "key",
    type: "password",
    autocomplete: "off",
    required: true,
  }) as HTMLInputElement;
  const form = h(
    "form",
    { class: "sign-in" },
    h("h2", {}, "Sign in"),
    h(
      "p",
      {},
      "Paste the operator key (or the read-only reader key) that ",
      h("code", {}, "npm start"),
      " printed; it is in ",
      h("code", {}, ".quiesce/local-keys.json"),
      ". The page keeps it in this tab only (sessionStorage).",
    ),
    h("label", { for: "key" }, "Key"),
    key,
    error,
    h("button", { type: "submit", id: "sign-in" }, "Sign in"),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void signIn.signIn(key.value).then(start);
  });
  replace(main, form);
  key.focus();
}

async function start(): Promise<void> {
  const credential = await signIn.credential();
  if (!credential) return showSignIn();
  try {
    me = await api.me();
  } catch (err) {
    await signIn.signOut();
    return showSignIn(`Sign-in refused: ${(err as Error).message}`);
  }
  showWho();
  await refresh();
  schedule();
}

window.addEventListener("hashchange", () => {
  lastRendered = "";
  void refresh();
  main.focus();
});

async function boot() {
  try {
    const config = await loadPageConfig();
    signIn = config.auth === "entra" ? await entraSignIn(config) : keySignIn();
    api = new StatusApi(async () => (await signIn.credential()) ?? "");
    await start();
  } catch (err) {
    replace(
      main,
      h(
        "p",
        { class: "error", role: "alert" },
        `The page could not start: ${(err as Error).message}`,
      ),
    );
  }
}

void boot();
