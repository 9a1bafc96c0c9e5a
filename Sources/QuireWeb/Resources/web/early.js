"use strict";
// The Quire app's page, part 0: what the page needs before anything else, loaded first and on
// its own (not deferred, so not in the bundle). It asks the server for the first page of the
// folder the address names at once, so the listing is on its way while the stylesheet and the
// rest of the scripts load; `get` takes that answer when it asks for the same page.

// Spaces as %20, not the form encoding's "+", which the server's query parsing keeps as "+"
// (a literal "+" is %2B here, so nothing else changes).
const query = (params) => new URLSearchParams(params).toString().replace(/\+/g, "%20");

// The address's fragment, decoded; the library's ("") if it holds a malformed escape (typed in).
function currentRoute() {
  try { return decodeURI(location.hash.slice(1)); } catch { return ""; }
}

// The folder an address's fragment names ("#/folder/PATH", or the library for "#/" and none),
// or null for the editors' addresses.
function folderOfRoute(hash) {
  if (hash.startsWith("/folder/")) return hash.slice(8);
  return hash === "" || hash === "/" ? "" : null;
}

// A first click sorts names and kinds A to Z, dates and sizes newest and largest first, and sync
// states what needs attention first (LibraryOrder.swift decides the same).
const naturalOrder = (key) => (key === "date" || key === "size" ? "desc" : "asc");
const sortKeys = ["name", "kind", "date", "size", "sync"];
const viewKey = (folder) => `quire.view:${folder}`;

// The view and order remembered for `folder` in this browser, or the grid by name.
function savedView(folder) {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(viewKey(folder))) || {}; } catch { saved = {}; }
  const sort = sortKeys.includes(saved.sort) ? saved.sort : "name";
  return {
    layout: saved.layout === "list" ? "list" : "grid",
    sort,
    order: saved.order === "asc" || saved.order === "desc" ? saved.order : naturalOrder(sort),
  };
}

// The address of a page of a folder's listing.
function listPath({ folder, sort, order, q = "", kind = "", tag = "", offset = 0, limit = 200 }) {
  return `api/list?${query({ folder, sort, order, q, kind, tag, offset, limit })}`;
}

// The first page of the folder in the address, asked for now. A failure is the business of the
// request that takes it (a copy is marked handled, so one nobody takes is no page error).
const early = (() => {
  const folder = folderOfRoute(currentRoute());
  if (folder === null) return null;
  const { sort, order } = savedView(folder);
  const path = listPath({ folder, sort, order });
  const response = fetch(path);
  response.catch(() => {});
  return { path, response };
})();

// The early answer, to the page's first listing request if it asks for the same path, else null.
// Either way that first request ends it: an answer kept for later would be stale by then.
function takeEarly(path) {
  if (!early?.response || !path.startsWith("api/list?")) return null;
  const { response } = early;
  early.response = null;
  return early.path === path ? response : null;
}
