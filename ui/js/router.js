// Hash routes: "#/rules/42/edit" -> the matching view, called with the main element.

const routes = [];

/** Register `pattern` ("/rules/:id") for `view(main, ...params)`. */
export function route(pattern, view) {
  const names = [];
  const source = pattern.replace(/:(\w+)/g, (_, name) => (names.push(name), "([^/]+)"));
  routes.push({ regex: new RegExp(`^${source}$`), view });
}

export function navigate(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

let guard = () => true;
/** `check(path)` returns true to render, or a hash to go to instead. */
export function setGuard(check) {
  guard = check;
}

export async function render() {
  const path = location.hash.replace(/^#/, "") || "/rules";
  const allowed = guard(path);
  if (allowed !== true) return navigate(allowed);
  const main = document.getElementById("main");
  for (const { regex, view } of routes) {
    const match = regex.exec(path.split("?")[0]);
    if (!match) continue;
    main.replaceChildren();
    markCurrent(path);
    await view(main, ...match.slice(1).map(decodeURIComponent));
    const heading = main.querySelector("h1");
    document.title = heading ? `${heading.textContent} · Cadenza` : "Cadenza";
    // After a link in the header, keyboard and screen reader users continue in the new page.
    if (!main.contains(document.activeElement)) main.focus({ preventScroll: true });
    return;
  }
  navigate("#/rules");
}

function markCurrent(path) {
  for (const link of document.querySelectorAll("#nav a")) {
    const on = path.startsWith(link.getAttribute("href").slice(1));
    if (on) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

/** The query parameters of the current hash ("#/runs?status=failed"). */
export function query() {
  return new URLSearchParams(location.hash.split("?")[1] || "");
}

/** Call `fn` every `ms` until the user leaves this page. */
export function whileHere(fn, ms) {
  const here = location.hash;
  const timer = setInterval(() => (location.hash === here && !document.hidden ? fn() : null), ms);
  const stop = () => location.hash !== here && (clearInterval(timer), window.removeEventListener("hashchange", stop));
  window.addEventListener("hashchange", stop);
}

export function start() {
  window.addEventListener("hashchange", render);
  return render();
}
