"use strict";
// The Quire app's page, last part: routing between the browser and the editors, and the
// server's event stream that keeps both live.

function route() {
  const hash = decodeURI(location.hash.slice(1));
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
