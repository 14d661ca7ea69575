// The event feed: what scripts emitted, newest first, checked for new ones while open.
import * as api from "../api.js";
import { fill, h, problemBox } from "../dom.js";
import { json, when } from "../format.js";
import { whileHere } from "../router.js";

const POLL_MS = 3000;
const DELIVERY = { delivered: "good", failed: "bad", pending: "wait" };
const PAGE = 100;

export async function eventsView(main) {
  const list = h("ol", { class: "feed", "aria-live": "polite" });
  const status = h("div");
  let after = null;
  let count = 0;

  async function poll() {
    try {
      for (;;) {
        const page = await api.get("/v1/events", { after, limit: PAGE });
        const events = api.items(page);
        list.prepend(...events.reverse().map(row));
        count += events.length;
        after = page.next_cursor;
        if (events.length < PAGE) break;
      }
      fill(status, count ? null : h("p", { class: "muted" }, "No events yet. Scripts emit them with ctx.emit(\"type\", {...})."));
    } catch (error) {
      fill(status, problemBox(error));
    }
  }

  fill(main, h("h1", {}, "Events"),
    h("p", { class: "muted" }, "What your scripts emitted. They are also delivered to your webhook, if you set one in Settings."),
    status, list);
  await poll();
  whileHere(poll, POLL_MS);
}

function row(event) {
  return h("li", { class: "event" },
    h("div", { class: "event-head" }, h("strong", {}, event.type), h("span", { class: "muted small" }, when(event.created_at)),
      event.rule_id ? h("a", { class: "small", href: `#/rules/${event.rule_id}` }, "from its rule") : null,
      event.delivery_status && event.delivery_status !== "none"
        ? h("span", { class: `badge ${DELIVERY[event.delivery_status] || "none"}`, title: event.last_error || "" }, `webhook: ${event.delivery_status}`)
        : null),
    h("pre", {}, json(event.payload)));
}
