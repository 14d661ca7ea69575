// A table of a cursor-paged listing with a "More" button: the first page replaces the table,
// each further page appends its rows, and a failure shows the problem in its place.
import * as api from "./api.js";
import { fill, h, problemBox } from "./dom.js";

/** `{ load(more = false) }` for `list` (an element); `table(rows)` wraps rows, `row(item)` makes one. */
export function pagedTable(list, { path, query = {}, table, row, empty, moreText }) {
  let cursor = null;
  async function load(more = false) {
    try {
      const page = await api.get(path, { ...query, limit: 50, cursor: more ? cursor : null });
      cursor = page.next_cursor;
      const rows = api.items(page).map(row);
      if (more) list.querySelector("tbody")?.append(...rows);
      else fill(list, rows.length ? table(rows) : h("p", { class: "muted" }, empty));
      list.querySelector(".more")?.remove();
      if (cursor) list.append(h("button", { type: "button", class: "secondary more", onclick: () => load(true) }, moreText));
    } catch (error) {
      fill(list, problemBox(error));
    }
  }
  return { load };
}
