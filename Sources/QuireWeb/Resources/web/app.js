"use strict";
// The Quire app's page, last part: routing between the browser and the editors, and the
// server's event stream that keeps both live.

function route() {
  const hash = currentRoute();
  $("simple").hidden = true;
  if (hash === "/sicd") {
    closeEditor().then(() => showSimple());
  } else if (hash.startsWith("/doc/")) {
    closeEditor().then(() => showEditor(hash.slice(5)));
  } else if (hash.startsWith("/handle/")) {
    closeEditor().then(() => showEditor(null, hash.slice(8)));
  } else {
    showBrowser(folderOfRoute(hash) ?? "");
  }
}
window.addEventListener("hashchange", route);

const events = new EventSource("api/events");
// The stream's first word is the library's version as it starts. The first listing is asked for
// before the scripts load (early.js), so a change between the two would be heard by neither:
// the page reloads if the library moved on meanwhile (see reload, for the other order).
events.addEventListener("hello", (event) => {
  state.streamVersion = JSON.parse(event.data).version;
  if (state.listedVersion < state.streamVersion && !$("browser").hidden) attempt(reload);
});
events.addEventListener("library", () => {
  if ($("browser").hidden) return;
  clearTimeout(state.reloadTimer);
  state.reloadTimer = setTimeout(() => attempt(reload), 100);
});
events.addEventListener("sicd", () => {
  if (!$("simple").hidden) attempt(loadSimple);
});
events.addEventListener("document", (event) => {
  const { handle } = JSON.parse(event.data);
  if (!state.doc || handle !== state.doc.handle) return;
  attempt(async () => apply(await get(`api/documents/state?${query({ handle })}`)));
});
route();
