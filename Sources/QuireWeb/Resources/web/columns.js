"use strict";
// The Quire app's page: the list view's columns (name, kind, date modified, size, sync state),
// sorted by a click on their heading as in Finder and GNOME Files, and each folder's view (grid
// or list) and order, remembered in this browser.

const columnLabels = { name: "Name", kind: "Kind", date: "Date Modified", size: "Size", sync: "Sync state" };
const kindNames = { mydoc: "MyDoc", text: "Text", album: "Album", sicd: "SimpleiCloudDocument", folder: "Folder" };
const kindName = (item) => kindNames[item.kind] || "File";

// The folder's remembered view and order, or the grid by name.
function loadView(folder) {
  Object.assign(state, savedView(folder));
  showView();
}

function saveView() {
  const view = { layout: state.layout, sort: state.sort, order: state.order };
  localStorage.setItem(viewKey(state.folder), JSON.stringify(view));
}

function orderWords(key, order) {
  const words = {
    name: ["A to Z", "Z to A"], kind: ["A to Z", "Z to A"], date: ["oldest first", "newest first"],
    size: ["smallest first", "largest first"], sync: ["needing attention first", "needing attention last"],
  };
  return words[key][order === "asc" ? 0 : 1];
}

// The controls say what is shown: the layout button, the sort menu and its direction, and the
// list's headings (the sorted one with its arrow).
function showView() {
  $("items").className = `items ${state.layout}`;
  $("layout").textContent = state.layout === "grid" ? "List" : "Grid";
  $("layout").title = state.layout === "grid" ? "Show as a list" : "Show as a grid";
  $("sort").value = state.sort;
  $("order").textContent = state.order === "asc" ? "↑" : "↓";
  $("order").setAttribute("aria-label", `Sorted ${orderWords(state.sort, state.order)}: reverse`);
  $("order").title = $("order").getAttribute("aria-label");
  $("columns").hidden = state.layout !== "list";
  for (const button of $("columns").querySelectorAll("button")) {
    const key = button.dataset.sort;
    const active = key === state.sort;
    button.dataset.order = active ? state.order : "";
    button.setAttribute("aria-label", active
      ? `${columnLabels[key]}, sorted ${orderWords(key, state.order)}: reverse`
      : `Sort by ${columnLabels[key]}`);
  }
}

function sortBy(key, order) {
  state.sort = key;
  state.order = order;
  saveView();
  showView();
  attempt(restart);
}

// The cells a row of the list shows after its name: kind, date modified, size and sync state.
function listCells(item) {
  const cell = (name, content) => {
    const span = document.createElement("span");
    span.className = `cell ${name}`;
    if (typeof content === "string") span.textContent = content; else span.append(content);
    return span;
  };
  return [
    cell("kind", kindName(item)),
    cell("date", item.isFolder ? "—" : dateText(item.modified)),
    cell("size", item.isFolder ? "—" : sizeText(item.size)),
    cell("sync", syncBadges(item, true)),
  ];
}

$("layout").onclick = () => {
  state.layout = state.layout === "grid" ? "list" : "grid";
  saveView();
  showView();
  attempt(reload);  // names are cut to the view's width, and the list has columns
};
$("sort").onchange = () => sortBy($("sort").value, naturalOrder($("sort").value));
$("order").onclick = () => sortBy(state.sort, state.order === "asc" ? "desc" : "asc");
for (const button of $("columns").querySelectorAll("button")) {
  button.onclick = () => {
    const key = button.dataset.sort;
    sortBy(key, key !== state.sort ? naturalOrder(key) : state.order === "asc" ? "desc" : "asc");
  };
}
