// Who is signed in: the credential lives in sessionStorage, so closing the tab signs out.

const KEY = "cadenza.session";

/** {credential, kind: "tenant"|"operator", tenantId, tenantName} or null. */
export function current() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY)) || null;
  } catch {
    return null;
  }
}

export function save(session) {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function update(changes) {
  save({ ...current(), ...changes });
}

export function clear() {
  sessionStorage.removeItem(KEY);
}
